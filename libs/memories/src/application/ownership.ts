import type { TenantScope, Tx } from '@app/persistence';
import type { MemoryRepository } from '../adapters/memory.repository';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';

/**
 * Why the caller may not change memory `id` they do not own: 403 when they can read it (a
 * teammate's team memory), 404 when they cannot (so ids reveal nothing).
 */
export async function notOwnedError(
  memories: Pick<MemoryRepository, 'findVisibleOne'>,
  scope: TenantScope,
  tx: Tx,
  id: number,
): Promise<MemoryError> {
  if ((await memories.findVisibleOne(scope, tx, id)) === null) return MemoryError.notFound(id);
  return new MemoryError(
    MemoryErrorCode.Forbidden,
    `Memory ${id} belongs to a teammate: only its owner (or an admin) may change it`,
  );
}
