import type { TenantScope, Tx } from '@app/persistence';
import type { Principal } from '@app/tenancy';
import { MemoryError, MemoryErrorCode } from '../../domain/memory.errors';
import type { ShareRepository } from '../adapters/share.repository';

/** The id of the user to share with: a user of the caller's tenant other than `owner`. */
export async function recipientId(
  shares: Pick<ShareRepository, 'findUserId'>,
  principal: Principal,
  tx: Tx,
  owner: TenantScope,
  username: string,
): Promise<string> {
  const userId = await shares.findUserId(principal, tx, username);
  if (userId === null) throw new MemoryError(MemoryErrorCode.UserNotFound, `User ${username} not found`);
  if (userId === owner.userId) {
    throw new MemoryError(MemoryErrorCode.ShareWithSelf, 'Cannot share with yourself');
  }
  return userId;
}
