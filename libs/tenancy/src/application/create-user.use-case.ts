import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { UserRepository } from '../adapters/user.repository';
import type { CreateUserInput } from '../contracts/admin.schemas';
import { assertAdmin, tenantScopeOf, type Actor } from '../domain/actor';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import type { User } from '../domain/user';
import { AuditWriter } from './audit-writer';

/** Adds a user to the actor's own tenant. */
@Injectable()
export class CreateUserUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(UserRepository) private readonly users: UserRepository,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(actor: Actor, input: CreateUserInput): Promise<User> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    return this.tx.inTenant(scope, async (tx) => {
      const user = await this.users.insert(scope, tx, input);
      if (!user)
        throw new TenancyError(TenancyErrorCode.UserExists, `User "${input.username}" already exists`);
      await this.audit.record(actor, tx, {
        action: 'user.create',
        targetType: 'user',
        targetId: user.id,
        details: { username: user.username, is_admin: user.isAdmin },
      });
      return user;
    });
  }
}
