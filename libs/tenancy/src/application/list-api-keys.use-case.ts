import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { TransactionRunner } from '@app/persistence';
import { ApiKeyRepository } from '../adapters/api-key.repository';
import { UserRepository } from '../adapters/user.repository';
import type { ListApiKeysInput } from '../contracts/admin.schemas';
import { decodeCursor, cursorTimestampSchema, toPage, type Page } from '../contracts/page';
import { assertAdmin, tenantScopeOf, type Actor } from '../domain/actor';
import type { ApiKeySummary } from '../domain/api-key';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import { AuditWriter } from './audit-writer';

const cursorSchema = z.tuple([z.string(), cursorTimestampSchema, z.uuid()]);

/**
 * Lists the keys of the actor's tenant (optionally one user's) by user, then creation, a page at a
 * time: metadata only, never hash or plaintext.
 */
@Injectable()
export class ListApiKeysUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(UserRepository) private readonly users: UserRepository,
    @Inject(ApiKeyRepository) private readonly keys: ApiKeyRepository,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(actor: Actor, input: ListApiKeysInput = {}): Promise<Page<ApiKeySummary>> {
    assertAdmin(actor);
    const limit = input.limit ?? 100;
    const after = input.cursor === undefined ? null : decodeCursor(cursorSchema, input.cursor);
    const scope = tenantScopeOf(actor);
    return this.tx.inTenant(scope, async (tx) => {
      let userId: string | undefined;
      if (input.user !== undefined) {
        const user = await this.users.findByRef(scope, tx, input.user);
        if (!user) throw new TenancyError(TenancyErrorCode.UserNotFound, `User "${input.user}" not found`);
        userId = user.id;
      }
      const rows = await this.keys.list(scope, tx, { userId, after, limit: limit + 1 });
      const page = toPage(
        rows,
        limit,
        (row) => row.key,
        (row) => row.pageKey,
      );
      await this.audit.record(actor, tx, {
        action: 'api_key.list',
        targetType: 'api_key',
        details: { user_id: userId ?? null, count: page.items.length },
      });
      return page;
    });
  }
}
