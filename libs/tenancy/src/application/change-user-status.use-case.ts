import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { UserRepository } from '../adapters/user.repository';
import { assertAdmin, isSystemActor, tenantScopeOf, type Actor } from '../domain/actor';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import type { User } from '../domain/user';
import { ApiKeyCache } from './api-key-cache';
import { AuditWriter } from './audit-writer';

/**
 * Disables or enables a user of the actor's tenant. A disabled user's keys answer 401 (this process
 * at once, other replicas within the auth cache window); their memories stay. Idempotent.
 */
@Injectable()
export class ChangeUserStatusUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(UserRepository) private readonly users: UserRepository,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
    @Inject(ApiKeyCache) private readonly cache: ApiKeyCache,
  ) {}

  async execute(actor: Actor, input: { user: string; disabled: boolean }): Promise<User> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    const user = await this.tx.inTenant(scope, async (tx) => {
      const found = await this.users.findByRef(scope, tx, input.user);
      if (!found) {
        throw new TenancyError(TenancyErrorCode.UserNotFound, `User "${input.user.slice(0, 200)}" not found`);
      }
      if (input.disabled && !isSystemActor(actor) && found.id === actor.userId) {
        throw new TenancyError(TenancyErrorCode.InvalidInput, 'You cannot disable your own user');
      }
      const changed = (await this.users.setDisabled(scope, tx, found.id, input.disabled)) as User;
      await this.audit.record(actor, tx, {
        action: input.disabled ? 'user.disable' : 'user.enable',
        targetType: 'user',
        targetId: changed.id,
        details: { username: changed.username },
      });
      return changed;
    });
    if (input.disabled) this.cache.evictUser(user.id);
    return user;
  }
}
