import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { TransactionRunner } from '@app/persistence';
import { UserRepository } from '../adapters/user.repository';
import { decodeCursor, toPage, type Page, type PageQuery } from '../contracts/page';
import { assertAdmin, tenantScopeOf, type Actor } from '../domain/actor';
import type { User } from '../domain/user';
import { AuditWriter } from './audit-writer';

const cursorSchema = z.tuple([z.string()]);

/** Lists the users of the actor's own tenant by username, a page at a time. */
@Injectable()
export class ListUsersUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(UserRepository) private readonly users: UserRepository,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(actor: Actor, page: Partial<PageQuery> = {}): Promise<Page<User>> {
    assertAdmin(actor);
    const limit = page.limit ?? 100;
    const after = page.cursor === undefined ? null : decodeCursor(cursorSchema, page.cursor)[0];
    const scope = tenantScopeOf(actor);
    return this.tx.inTenant(scope, async (tx) => {
      const rows = await this.users.list(scope, tx, { after, limit: limit + 1 });
      const result = toPage(
        rows,
        limit,
        (user) => user,
        (user) => [user.username],
      );
      await this.audit.record(actor, tx, {
        action: 'user.list',
        targetType: 'user',
        details: { count: result.items.length },
      });
      return result;
    });
  }
}
