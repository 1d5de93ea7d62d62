import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { ApiKeyRepository } from '../adapters/api-key.repository';
import { assertAdmin, tenantScopeOf, type Actor } from '../domain/actor';
import type { ApiKeySummary } from '../domain/api-key';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import { ApiKeyCache } from './api-key-cache';
import { AuditWriter } from './audit-writer';
import { singleKey } from './single-key';

export interface RevokeApiKeyInput {
  /** The key's id, or the prefix `keys list` shows (refused when it names several keys). */
  readonly keyId: string;
}

/**
 * Revokes a key of the actor's tenant. Idempotent (a second revoke keeps the first time).
 * Another tenant's key is "not found", never "forbidden". This process stops accepting the key at
 * once; other replicas within the auth cache window (see ApiKeyCache).
 */
@Injectable()
export class RevokeApiKeyUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(ApiKeyRepository) private readonly keys: ApiKeyRepository,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
    @Inject(ApiKeyCache) private readonly cache: ApiKeyCache,
  ) {}

  async execute(actor: Actor, input: RevokeApiKeyInput): Promise<ApiKeySummary> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    const key = await this.tx.inTenant(scope, async (tx) => {
      const found = singleKey(await this.keys.findByRef(scope, tx, input.keyId), input.keyId);
      const revoked = await this.keys.revoke(scope, tx, found.id);
      if (!revoked)
        throw new TenancyError(TenancyErrorCode.KeyNotFound, `API key "${input.keyId}" not found`);
      await this.audit.record(actor, tx, {
        action: 'api_key.revoke',
        targetType: 'api_key',
        targetId: revoked.id,
        details: { user_id: revoked.userId, username: revoked.username, prefix: revoked.prefix },
      });
      return revoked;
    });
    this.cache.evictKey(key.id);
    return key;
  }
}
