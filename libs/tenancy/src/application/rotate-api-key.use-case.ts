import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { ApiKeyRepository } from '../adapters/api-key.repository';
import { assertAdmin, actingUserId, tenantScopeOf, type Actor } from '../domain/actor';
import type { RotatedApiKey } from '../domain/api-key';
import { displayPrefixOf, generateApiKey, hashApiKey } from '../domain/api-key-format';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import { ApiKeyCache } from './api-key-cache';
import { AuditWriter } from './audit-writer';
import { singleKey } from './single-key';

/** How long a rotated key keeps working (KEY_ROTATION_GRACE_SECONDS). */
export const KEY_ROTATION_GRACE_SECONDS = Symbol('KEY_ROTATION_GRACE_SECONDS');

/**
 * Replaces a managed key with a new one for the same user, name, scopes, default visibility and
 * expiry. The old key keeps working for the grace period, so clients can switch without an outage,
 * then expires like any key. Env keys are rotated by changing the environment instead.
 */
@Injectable()
export class RotateApiKeyUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(ApiKeyRepository) private readonly keys: ApiKeyRepository,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
    @Inject(ApiKeyCache) private readonly cache: ApiKeyCache,
    @Inject(KEY_ROTATION_GRACE_SECONDS) private readonly graceSeconds: number,
  ) {}

  async execute(actor: Actor, input: { keyId: string }): Promise<RotatedApiKey> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    const rotated = await this.tx.inTenant(scope, async (tx) => {
      const old = singleKey(await this.keys.findByRef(scope, tx, input.keyId), input.keyId);
      if (old.source === 'env') {
        throw new TenancyError(
          TenancyErrorCode.InvalidInput,
          `Key ${old.prefix} comes from the environment (API_KEYS, API_KEY, ADMIN_API_KEY): rotate it there`,
        );
      }
      if (old.source === 'oidc') {
        throw new TenancyError(
          TenancyErrorCode.InvalidInput,
          `Key ${old.prefix} is held by an identity provider sign-in, which has no key to rotate: revoke it to shut that sign-in out`,
        );
      }
      if (!old.active) {
        const why = old.replacedBy
          ? `was already rotated (replaced by ${old.replacedBy})`
          : 'is revoked or expired';
        throw new TenancyError(TenancyErrorCode.KeyNotActive, `API key ${old.prefix} ${why}`);
      }
      if (old.userDisabled) {
        throw new TenancyError(TenancyErrorCode.InvalidInput, `User "${old.username}" is disabled`);
      }
      const plaintext = generateApiKey();
      const key = await this.keys.insert(scope, tx, {
        userId: old.userId,
        name: old.name,
        hash: hashApiKey(plaintext),
        prefix: displayPrefixOf(plaintext),
        scopes: old.scopes,
        expiresAt: old.expiresAt,
        defaultVisibility: old.defaultVisibility,
        createdBy: actingUserId(actor),
      });
      const previous = await this.keys.markRotated(scope, tx, {
        keyId: old.id,
        replacement: key.id,
        graceSeconds: this.graceSeconds,
      });
      await this.audit.record(actor, tx, {
        action: 'api_key.rotate',
        targetType: 'api_key',
        targetId: old.id,
        details: {
          user_id: old.userId,
          username: old.username,
          prefix: old.prefix,
          replaced_by: key.id,
          old_key_expires_at: previous.expiresAt,
        },
      });
      return { key, plaintext, previous };
    });
    // The cached entry carries the old expiry; drop it so the grace period's end is honoured.
    this.cache.evictKey(rotated.previous.id);
    return rotated;
  }
}
