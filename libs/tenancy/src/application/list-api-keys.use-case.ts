import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { ApiKeyRepository } from '../adapters/api-key.repository';
import { UserRepository } from '../adapters/user.repository';
import type { ListApiKeysInput } from '../contracts/admin.schemas';
import { assertAdmin, tenantScopeOf, type Actor } from '../domain/actor';
import type { ApiKeySummary } from '../domain/api-key';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import { AuditWriter } from './audit-writer';

/** Lists the keys of the actor's tenant (optionally one user's): metadata only, never hash or plaintext. */
@Injectable()
export class ListApiKeysUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(UserRepository) private readonly users: UserRepository,
    @Inject(ApiKeyRepository) private readonly keys: ApiKeyRepository,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(actor: Actor, input: ListApiKeysInput = {}): Promise<ApiKeySummary[]> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    return this.tx.inTenant(scope, async (tx) => {
      let userId: string | undefined;
      if (input.user !== undefined) {
        const user = await this.users.findByRef(scope, tx, input.user);
        if (!user) throw new TenancyError(TenancyErrorCode.UserNotFound, `User "${input.user}" not found`);
        userId = user.id;
      }
      const keys = await this.keys.list(scope, tx, { userId });
      await this.audit.record(actor, tx, {
        action: 'api_key.list',
        targetType: 'api_key',
        details: { user_id: userId ?? null, count: keys.length },
      });
      return keys;
    });
  }
}
