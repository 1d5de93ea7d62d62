import { Inject, Injectable, Optional } from '@nestjs/common';
import type { OAuthIssuer } from '@app/config';
import type { Tx } from '@app/persistence';
import { ApiKeyRepository, type KeyForAuthentication } from '../adapters/api-key.repository';
import { TenantRepository } from '../adapters/tenant.repository';
import { UserRepository } from '../adapters/user.repository';
import { NO_USER_ID, type SystemActor } from '../domain/actor';
import { credentialRejection, LAST_USED_RESOLUTION_SECONDS } from '../domain/api-key';
import { ALL_SCOPES, MEMBER_SCOPES, type Principal, type Scope } from '../domain/principal';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import { effectiveQuotas, TENANT_QUOTA_DEFAULTS, type TenantQuotas } from '../domain/tenant-quotas';
import { AuditWriter } from './audit-writer';

/** Who an identity provider says signed in (from a verified access token or ID token). */
export interface SignedInIdentity {
  readonly issuer: OAuthIssuer;
  readonly subject: string;
  /** The email, only when the provider says it is verified. */
  readonly verifiedEmail: string | null;
  readonly name: string | null;
}

/** The users table's rule for usernames (an email longer or with other characters cannot be one). */
const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

const IDENTITY_MESSAGES = {
  revoked: 'This sign-in has been revoked by an administrator',
  expired: 'This sign-in has expired',
  user_disabled: 'The user of this sign-in is disabled',
} as const;

/**
 * The one mapping from an identity provider's sign-in to a member, shared by access tokens (the
 * resource server) and the console's sign-in: the identity bound before (issuer, subject), else the
 * user whose username is the verified email, else — when the issuer allows the email's domain — a
 * new user with the issuer's role. A first sign-in binds the identity to a key row of its own
 * (`source = 'oidc'`), so rate limits, audit, last-used and revocation work as for any key. Creating
 * a user and binding are audited.
 */
@Injectable()
export class IdentityKeyResolver {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly tenants: TenantRepository,
    private readonly users: UserRepository,
    private readonly audit: AuditWriter,
    @Optional() @Inject(TENANT_QUOTA_DEFAULTS) private readonly quotaDefaults?: TenantQuotas,
  ) {}

  /** The identity's key: bound before, or bound now to the member it names (added if allowed). */
  async keyOf(tx: Tx, token: SignedInIdentity, requestId?: string): Promise<KeyForAuthentication> {
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

  /**
   * The principal an identity's key acts as (401 when it is revoked, expired or its user disabled),
   * with `scopes` (the key's, or fewer).
   */
  principalOf(key: KeyForAuthentication, scopes: readonly Scope[]): Omit<Principal, 'requestId'> {
    const rejection = credentialRejection(key);
    if (rejection) throw unauthenticated(IDENTITY_MESSAGES[rejection]);
    return {
      tenantId: key.tenantId,
      tenantSlug: key.tenantSlug,
      userId: key.userId,
      username: key.username,
      keyId: key.id,
      scopes: [...scopes],
      ...(key.defaultVisibility === null ? {} : { defaultVisibility: key.defaultVisibility }),
      ...(this.quotaDefaults === undefined
        ? {}
        : { quotas: effectiveQuotas(this.quotaDefaults, key.quotas) }),
    };
  }
}

function unauthenticated(message: string): TenancyError {
  return new TenancyError(TenancyErrorCode.Unauthenticated, message);
}

function forbidden(message: string): TenancyError {
  return new TenancyError(TenancyErrorCode.Forbidden, message);
}
