import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { UserRepository } from '../adapters/user.repository';
import { assertAdmin, tenantScopeOf, type Actor } from '../domain/actor';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import type { User } from '../domain/user';

/** A user of the admin's own tenant by id or username; any other answers 404. */
@Injectable()
export class FindUserUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(UserRepository) private readonly users: UserRepository,
  ) {}

  async execute(actor: Actor, ref: string): Promise<User> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    const user = await this.tx.inTenant(scope, (tx) => this.users.findByRef(scope, tx, ref));
    if (!user) throw new TenancyError(TenancyErrorCode.UserNotFound, `User "${ref.slice(0, 200)}" not found`);
    return user;
  }
}
