import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AccessTokenVerifier } from '../adapters/access-token-verifier';
import { normalizeScopes, type Principal, type Scope } from '../domain/principal';
import { ApiKeyCache } from './api-key-cache';
import { IdentityKeyResolver } from './identity-key-resolver';

/**
 * Turns an identity provider's access token into a Principal (MCP authorization: this service is
 * the resource server, never the authorization server). The token is verified
 * (AccessTokenVerifier); its issuer names the one tenant it signs members in to. The member is
 * found by the identity bound before (issuer, subject), else by the token's verified email as a
 * username, else — when the issuer allows the email's domain — added as a new user with the
 * issuer's role. A first sign-in binds the identity to a key row of its own (`source = 'oidc'`), so
 * rate limits, audit and revocation work as for any key. Binding and creation are audited.
 *
 * The principal's scopes: the key row's (the role's), narrowed to the token's scopes when the token
 * names any of this service's scopes.
 */
@Injectable()
export class AuthenticateAccessTokenUseCase {
  constructor(
    private readonly verifier: AccessTokenVerifier,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    private readonly identities: IdentityKeyResolver,
    private readonly cache: ApiKeyCache,
  ) {}

  /** Whether `bearer` is an access token for this use case (issuers configured, JWT-shaped). */
  accepts(bearer: string): boolean {
    return this.verifier.accepts(bearer);
  }

  async execute(token: string, requestId?: string): Promise<Principal> {
    const verified = await this.verifier.verify(token);
    const cacheKey = `token:${createHash('sha256').update(token).digest('hex')}`;
    const cached = this.cache.get(cacheKey);
    if (cached) return { ...cached, requestId };

    const key = await this.tx.asSystem((tx) => this.identities.keyOf(tx, verified, requestId));
    const principal = this.identities.principalOf(key, narrowed(key.scopes, verified.scopes));
    const until = new Date(Math.min(verified.expiresAt, key.expiresAt?.getTime() ?? Infinity));
    this.cache.set(cacheKey, principal, until);
    return { ...principal, requestId };
  }
}

/** The key's scopes, narrowed to the token's when the token names any scope of this service. */
function narrowed(keyScopes: readonly Scope[], tokenScopes: readonly string[] | null): Scope[] {
  const named = normalizeScopes(tokenScopes ?? []);
  if (named.length === 0) return [...keyScopes];
  return keyScopes.filter((s) => named.includes(s));
}
