import type { AppConfig, OAuthConsoleClient, OAuthIssuer } from '@app/config';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';

export type ConsoleIssuer = OAuthIssuer & { readonly console: OAuthConsoleClient };

/** Where the identity providers send the browser back (registered with each console client). */
export const CONSOLE_CALLBACK_PATH = '/auth/callback';

/** The issuers with a console client, each with its index in OAUTH_ISSUERS (the login cookie's). */
export function consoleIssuers(oauth: AppConfig['oauth']): { issuer: ConsoleIssuer; index: number }[] {
  return oauth.issuers.flatMap((issuer, index) =>
    issuer.console ? [{ issuer: issuer as ConsoleIssuer, index }] : [],
  );
}

/** `OAUTH_RESOURCE` + the callback path: the redirect URI of every console client. */
export function consoleRedirectUri(oauth: AppConfig['oauth']): string {
  if (oauth.resource === null)
    throw new TenancyError(TenancyErrorCode.SignInFailed, 'Console sign-in is not configured');
  return `${oauth.resource}${CONSOLE_CALLBACK_PATH}`;
}
