import { Inject, Injectable, Optional } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { ApiKeyRepository, type KeyForAuthentication } from '../adapters/api-key.repository';
import { KEY_REJECTION_MESSAGES, keyRejection, LAST_USED_RESOLUTION_SECONDS } from '../domain/api-key';
import { classifyApiKey, hashApiKey } from '../domain/api-key-format';
import type { Principal } from '../domain/principal';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import { effectiveQuotas, TENANT_QUOTA_DEFAULTS, type TenantQuotas } from '../domain/tenant-quotas';
import { ApiKeyCache } from './api-key-cache';
import { AuthenticateAccessTokenUseCase } from './authenticate-access-token.use-case';

export { LAST_USED_RESOLUTION_SECONDS } from '../domain/api-key';

/**
 * Turns a presented key into a Principal, or throws `unauthenticated`.
 *
 * Malformed `msk_` keys (bad checksum, typo, truncation) are refused before any database access.
 * Otherwise one indexed lookup by sha256 (a system transaction: the tenant is not known yet),
 * plus a last_used_at update at most once a minute per key. Verified keys are cached briefly;
 * see ApiKeyCache for how quickly revocations take effect.
 */
@Injectable()
export class AuthenticateApiKeyUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(ApiKeyRepository) private readonly keys: ApiKeyRepository,
    @Inject(ApiKeyCache) private readonly cache: ApiKeyCache,
    /** Absent (the CLI, tests): principals carry no quotas, so nothing is limited. */
    @Optional() @Inject(TENANT_QUOTA_DEFAULTS) private readonly quotaDefaults?: TenantQuotas,
    /** Absent (the CLI, tests): bearer credentials are API keys only. */
    @Optional() private readonly accessTokens?: AuthenticateAccessTokenUseCase,
  ) {}

  /**
   * `rawKey`: what followed `Bearer`. With identity providers configured (OAUTH_ISSUERS), a JWT is
   * an access token (AuthenticateAccessTokenUseCase); anything else is an API key.
   */
  async execute(rawKey: string, requestId?: string): Promise<Principal> {
    if (this.accessTokens?.accepts(rawKey)) return this.accessTokens.execute(rawKey, requestId);
    const format = classifyApiKey(rawKey);
    if (format === 'invalid') throw unauthenticated('Invalid API key (malformed or bad checksum)');

    const hash = hashApiKey(rawKey);
    const cacheKey = hash.toString('hex');
    const cached = this.cache.get(cacheKey);
    if (cached) return { ...cached, requestId };

    const key = await this.tx.asSystem(async (tx) => {
      const found = await this.keys.findForAuthentication(tx, hash, LAST_USED_RESOLUTION_SECONDS);
      const rejection = found ? keyRejection(found, format) : 'unknown';
      if (!found || rejection) throw unauthenticated(KEY_REJECTION_MESSAGES[rejection ?? 'unknown']);
      if (found.touchDue) await this.keys.touchLastUsed(tx, found.id, LAST_USED_RESOLUTION_SECONDS);
      return found;
    });

    const principal = toPrincipal(key, this.quotaDefaults);
    this.cache.set(cacheKey, principal, key.expiresAt);
    return { ...principal, requestId };
  }
}

function toPrincipal(
  key: KeyForAuthentication,
  quotaDefaults: TenantQuotas | undefined,
): Omit<Principal, 'requestId'> {
  return {
    tenantId: key.tenantId,
    tenantSlug: key.tenantSlug,
    userId: key.userId,
    username: key.username,
    keyId: key.id,
    scopes: key.scopes,
    ...(key.defaultVisibility === null ? {} : { defaultVisibility: key.defaultVisibility }),
    ...(quotaDefaults === undefined ? {} : { quotas: effectiveQuotas(quotaDefaults, key.quotas) }),
  };
}

function unauthenticated(message: string): TenancyError {
  return new TenancyError(TenancyErrorCode.Unauthenticated, message);
}
