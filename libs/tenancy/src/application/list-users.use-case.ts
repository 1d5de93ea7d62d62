import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { UserRepository } from '../adapters/user.repository';
import { assertAdmin, tenantScopeOf, type Actor } from '../domain/actor';
import type { User } from '../domain/user';
import { AuditWriter } from './audit-writer';

/** Lists the users of the actor's own tenant. */
@Injectable()
export class ListUsersUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(UserRepository) private readonly users: UserRepository,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(actor: Actor): Promise<User[]> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    return this.tx.inTenant(scope, async (tx) => {
      const users = await this.users.list(scope, tx);
      await this.audit.record(actor, tx, {
        action: 'user.list',
        targetType: 'user',
        details: { count: users.length },
      });
      return users;
    });
  }
}
