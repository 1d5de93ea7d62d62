import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { OidcClient } from '../adapters/oidc-client';
import { loginStateOf, newLoginCookie } from '../domain/console-sign-in';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import { consoleIssuers, consoleRedirectUri } from './console-sign-in-providers';

export interface ConsoleSignInStart {
  /** The identity provider's authorization endpoint with this sign-in's request. */
  readonly authorizationUrl: string;
  /** The login cookie's value (HttpOnly, short-lived): the secret the request's state derives from. */
  readonly loginCookie: string;
}

/**
 * Starts the console's sign-in with an identity provider (authorization code + PKCE S256, state,
 * nonce; domain/console-sign-in.ts): the browser is sent to the provider with a new login cookie.
 */
@Injectable()
export class BeginConsoleSignInUseCase {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly oidc: OidcClient,
  ) {}

  /** The identity providers the console offers, in configuration order. */
  providers(): { issuer: string; label: string }[] {
    return consoleIssuers(this.config.oauth).map(({ issuer }) => ({
      issuer: issuer.issuer,
      label: issuer.console.label,
    }));
  }

  async execute(issuerUrl: string): Promise<ConsoleSignInStart> {
    const found = consoleIssuers(this.config.oauth).find(({ issuer }) => issuer.issuer === issuerUrl);
    if (!found)
      throw new TenancyError(
        TenancyErrorCode.InvalidInput,
        'issuer: not an identity provider the console signs in with (GET /auth/providers lists them)',
      );
    const loginCookie = newLoginCookie(found.index, Date.now());
    const state = loginStateOf(loginCookie, Date.now())!;
    const authorizationUrl = await this.oidc.authorizationUrl(found.issuer, {
      redirectUri: consoleRedirectUri(this.config.oauth),
      state: state.state,
      nonce: state.nonce,
      codeChallenge: state.codeChallenge,
    });
    return { authorizationUrl, loginCookie };
  }
}
