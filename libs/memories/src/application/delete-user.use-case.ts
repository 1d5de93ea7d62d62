import { Inject, Injectable } from '@nestjs/common';
import { ChangeUserStatusUseCase, type Actor, type User } from '@app/tenancy';
import { EraseUserDataUseCase, type ErasureReceipt } from './erase-user-data.use-case';

export interface DeletedUser {
  readonly user: User;
  readonly erasure: ErasureReceipt;
}

/**
 * Deleting a user: disable them (their keys answer 401 from now on), then erase their memory data
 * as `DELETE /api/admin/users/:id/data` does. Disabling first means no write of theirs lands after
 * the erasure. The user row, their keys and the audit log stay, so the audit trail keeps its names.
 */
@Injectable()
export class DeleteUserUseCase {
  constructor(
    @Inject(ChangeUserStatusUseCase) private readonly status: ChangeUserStatusUseCase,
    @Inject(EraseUserDataUseCase) private readonly erase: EraseUserDataUseCase,
  ) {}

  async execute(actor: Actor, userRef: string): Promise<DeletedUser> {
    const user = await this.status.execute(actor, { user: userRef, disabled: true });
    const erasure = await this.erase.execute(actor, user.id);
    return { user, erasure };
  }
}
