import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { TransactionRunner } from '@app/persistence';
import { AuditLogRepository } from '../adapters/audit-log.repository';
import { UserRepository } from '../adapters/user.repository';
import type { AuditQuery } from '../contracts/audit.schemas';
import { cursorTimestampSchema, decodeCursor, toPage, type Page } from '../contracts/page';
import { assertAdmin, tenantScopeOf, type Actor } from '../domain/actor';
import type { AuditRecord } from '../domain/audit-record';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';

const cursorSchema = z.tuple([cursorTimestampSchema, z.string().regex(/^\d{1,19}$/)]);

/** The audit log of the actor's own tenant, newest first, filtered and keyset-paged. */
@Injectable()
export class ListAuditLogUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(UserRepository) private readonly users: UserRepository,
    @Inject(AuditLogRepository) private readonly audit: AuditLogRepository,
  ) {}

  async execute(actor: Actor, query: AuditQuery): Promise<Page<AuditRecord>> {
    assertAdmin(actor);
    const before = query.cursor === undefined ? undefined : decodeCursor(cursorSchema, query.cursor);
    const scope = tenantScopeOf(actor);
    return this.tx.inTenant(scope, async (tx) => {
      let actorId: string | undefined;
      if (query.actor !== undefined) {
        const user = await this.users.findByRef(scope, tx, query.actor);
        if (!user) throw new TenancyError(TenancyErrorCode.UserNotFound, `User "${query.actor}" not found`);
        actorId = user.id;
      }
      const rows = await this.audit.list(scope, tx, {
        actorId,
        action: query.action,
        actionPrefix: query.actionPrefix,
        targetId: query.target,
        since: query.since,
        before,
        limit: query.limit + 1,
      });
      return toPage(
        rows,
        query.limit,
        (row) => row,
        (row) => [row.createdAt, row.id],
      );
    });
  }
}
