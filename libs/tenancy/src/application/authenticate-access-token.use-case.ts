import { createHash } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { TransactionRunner, type Tx } from '@app/persistence';
import { AccessTokenVerifier, type VerifiedAccessToken } from '../adapters/access-token-verifier';
import { ApiKeyRepository, type KeyForAuthentication } from '../adapters/api-key.repository';
import { TenantRepository } from '../adapters/tenant.repository';
import { UserRepository } from '../adapters/user.repository';
import { NO_USER_ID, type SystemActor } from '../domain/actor';
import { credentialRejection, LAST_USED_RESOLUTION_SECONDS } from '../domain/api-key';
import { ALL_SCOPES, MEMBER_SCOPES, normalizeScopes, type Principal, type Scope } from '../domain/principal';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import { effectiveQuotas, TENANT_QUOTA_DEFAULTS, type TenantQuotas } from '../domain/tenant-quotas';
import { ApiKeyCache } from './api-key-cache';
import { AuditWriter } from './audit-writer';

/** The users table's rule for usernames (an email longer or with other characters cannot be one). */
const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

const IDENTITY_MESSAGES = {
  revoked: 'This sign-in has been revoked by an administrator',
  expired: 'This sign-in has expired',
  user_disabled: 'The user of this sign-in is disabled',
} as const;

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
    private readonly keys: ApiKeyRepository,
    private readonly tenants: TenantRepository,
    private readonly users: UserRepository,
    private readonly audit: AuditWriter,
    private readonly cache: ApiKeyCache,
    @Optional() @Inject(TENANT_QUOTA_DEFAULTS) private readonly quotaDefaults?: TenantQuotas,
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

    const key = await this.tx.asSystem((tx) => this.keyOf(tx, verified, requestId));
    const rejection = credentialRejection(key);
    if (rejection) throw unauthenticated(IDENTITY_MESSAGES[rejection]);
    const principal: Omit<Principal, 'requestId'> = {
      tenantId: key.tenantId,
      tenantSlug: key.tenantSlug,
      userId: key.userId,
      username: key.username,
      keyId: key.id,
      scopes: narrowed(key.scopes, verified.scopes),
      ...(key.defaultVisibility === null ? {} : { defaultVisibility: key.defaultVisibility }),
      ...(this.quotaDefaults === undefined
        ? {}
        : { quotas: effectiveQuotas(this.quotaDefaults, key.quotas) }),
    };
    const until = new Date(Math.min(verified.expiresAt, key.expiresAt?.getTime() ?? Infinity));
    this.cache.set(cacheKey, principal, until);
    return { ...principal, requestId };
  }

  /** The identity's key: bound before, or bound now to the member the token names (added if allowed). */
  private async keyOf(tx: Tx, token: VerifiedAccessToken, requestId?: string): Promise<KeyForAuthentication> {
    const tenant = await this.tenants.findBySlug(tx, token.issuer.tenant);
    if (!tenant)
      throw forbidden(
        `The tenant "${token.issuer.tenant}" this identity provider signs in to does not exist`,
      );
    const identity = { issuer: token.issuer.issuer, subject: token.subject, tenantId: tenant.id };
    const bound = await this.keys.findForIdentity(tx, identity, LAST_USED_RESOLUTION_SECONDS);
    if (bound) {
      if (bound.touchDue) await this.keys.touchLastUsed(tx, bound.id, LAST_USED_RESOLUTION_SECONDS);
      return bound;
    }
    const actor: SystemActor = {
      kind: 'system',
      via: 'sign-in',
      tenantId: tenant.id,
      tenantSlug: tenant.slug,
      requestId,
    };
    const scope = { tenantId: tenant.id, userId: NO_USER_ID };
    const email = token.verifiedEmail;
    let user = email === null ? null : await this.users.findByRef(scope, tx, email);
    if (user === null) {
      const domain = email?.split('@')[1] ?? null;
      if (email === null || domain === null || !token.issuer.jitDomains.includes(domain))
        throw forbidden(
          email === null
            ? 'No member of this team matches this sign-in (the token carries no verified email)'
            : `No member of this team is "${email}", and members are not added from its domain`,
        );
      if (!USERNAME.test(email)) throw forbidden(`"${email}" cannot be used as a username here`);
      const created = await this.users.insert(scope, tx, {
        username: email,
        displayName: token.name,
        isAdmin: token.issuer.jitRole === 'admin',
      });
      if (created)
        await this.audit.record(actor, tx, {
          action: 'user.create',
          targetType: 'user',
          targetId: created.id,
          details: { username: created.username, is_admin: created.isAdmin, issuer: identity.issuer },
        });
      // Null: added by a concurrent first sign-in a moment ago.
      user = created ?? (await this.users.findByRef(scope, tx, email));
      if (user === null) throw unauthenticated('The sign-in could not be completed; try again');
    }
    const scopes: Scope[] = user.isAdmin ? [...ALL_SCOPES] : [...MEMBER_SCOPES];
    await this.keys.bindIdentity(tx, { ...identity, userId: user.id, email, scopes });
    await this.audit.record(actor, tx, {
      action: 'identity.bind',
      targetType: 'user',
      targetId: user.id,
      details: { username: user.username, issuer: identity.issuer, subject: identity.subject },
    });
    const key = await this.keys.findForIdentity(tx, identity, LAST_USED_RESOLUTION_SECONDS);
    if (!key) throw unauthenticated('The sign-in could not be bound; try again');
    return key;
  }
}

/** The key's scopes, narrowed to the token's when the token names any scope of this service. */
function narrowed(keyScopes: readonly Scope[], tokenScopes: readonly string[] | null): Scope[] {
  const named = normalizeScopes(tokenScopes ?? []);
  if (named.length === 0) return [...keyScopes];
  return keyScopes.filter((s) => named.includes(s));
}

function unauthenticated(message: string): TenancyError {
  return new TenancyError(TenancyErrorCode.Unauthenticated, message);
}

function forbidden(message: string): TenancyError {
  return new TenancyError(TenancyErrorCode.Forbidden, message);
}
