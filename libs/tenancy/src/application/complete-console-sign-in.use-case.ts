import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { TransactionRunner } from '@app/persistence';
import { ConsoleSessionRepository } from '../adapters/console-session.repository';
import { OidcClient } from '../adapters/oidc-client';
import {
  csrfTokenOf,
  loginStateOf,
  newSessionToken,
  sameSecret,
  sessionTokenHash,
} from '../domain/console-sign-in';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import { AuditWriter } from './audit-writer';
import { consoleIssuers, consoleRedirectUri } from './console-sign-in-providers';
import { IdentityKeyResolver } from './identity-key-resolver';

export interface ConsoleCallback {
  /** The login cookie the browser sent back (absent: it expired or another browser followed the link). */
  readonly loginCookie: string | undefined;
  readonly code: string | undefined;
  readonly state: string | undefined;
  /** The provider's `error` (the member refused, or the provider failed). */
  readonly error: string | undefined;
}

export interface ConsoleSessionStart {
  /** The session cookie's value; only its hash is stored. */
  readonly sessionToken: string;
  readonly csrfToken: string;
  /** Seconds until the session's absolute expiry (the cookie's Max-Age). */
  readonly maxAgeSeconds: number;
  readonly username: string;
}

/**
 * Finishes the console's sign-in: the callback's `state` must derive from this browser's login
 * cookie, the code is exchanged with the PKCE verifier, the ID token verified (issuer, audience,
 * nonce); the member is found exactly as for an access token (IdentityKeyResolver: bound identity,
 * verified email, or a new member of an allowed domain), and a server-side session is started on the
 * identity's own key, so revoking that key or disabling the user ends the session too. Audited as
 * `console.sign_in`.
 */
@Injectable()
export class CompleteConsoleSignInUseCase {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    private readonly oidc: OidcClient,
    private readonly identities: IdentityKeyResolver,
    private readonly sessions: ConsoleSessionRepository,
    private readonly audit: AuditWriter,
  ) {}

  async execute(callback: ConsoleCallback, requestId?: string): Promise<ConsoleSessionStart> {
    const login = callback.loginCookie ? loginStateOf(callback.loginCookie, Date.now()) : null;
    if (!login || callback.state === undefined || !sameSecret(login.state, callback.state))
      throw failed('This sign-in was not started in this browser, or took longer than 10 minutes');
    if (callback.error !== undefined)
      throw failed(`The identity provider did not sign you in (${callback.error.slice(0, 100)})`);
    if (callback.code === undefined) throw failed('The identity provider sent no code');
    const found = consoleIssuers(this.config.oauth).find(({ index }) => index === login.issuerIndex);
    if (!found) throw failed('The identity provider of this sign-in is no longer configured');

    const claims = await this.oidc.signIn(found.issuer, {
      code: callback.code,
      redirectUri: consoleRedirectUri(this.config.oauth),
      codeVerifier: login.codeVerifier,
      nonce: login.nonce,
    });
    const { idleSeconds, maxSeconds } = this.config.oauth.consoleSessions;
    const sessionToken = newSessionToken();
    const key = await this.tx.asSystem(async (tx) => {
      const bound = await this.identities.keyOf(tx, { issuer: found.issuer, ...claims }, requestId);
      // Refused (revoked, disabled) before a session exists.
      const principal = this.identities.principalOf(bound, bound.scopes);
      await this.sessions.insert(
        tx,
        {
          tenantId: bound.tenantId,
          userId: bound.userId,
          keyId: bound.id,
          tokenHash: sessionTokenHash(sessionToken),
          maxSeconds,
        },
        idleSeconds,
      );
      // Who signed in to the console, and through which provider: in the tenant's audit log.
      await this.audit.record({ ...principal, requestId }, tx, {
        action: 'console.sign_in',
        targetType: 'user',
        targetId: bound.userId,
        details: { issuer: found.issuer.issuer, session_max_seconds: maxSeconds },
      });
      return bound;
    });
    return {
      sessionToken,
      csrfToken: csrfTokenOf(sessionToken),
      maxAgeSeconds: maxSeconds,
      username: key.username,
    };
  }
}

function failed(message: string): TenancyError {
  return new TenancyError(TenancyErrorCode.SignInFailed, message);
}
