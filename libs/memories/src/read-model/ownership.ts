import type { TenantScope, Tx } from '@app/persistence';
import { hasScope, type Principal } from '@app/tenancy';
import type { MemoryReadRepository } from './memory-read.repository';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';

/**
 * What a change needs: `edit` (update) is allowed to the owner, a `write` share and admins;
 * `manage` (delete, restore, purge, share, make team) to the owner and admins only.
 */
export type MemoryChange = 'edit' | 'manage';

const DENIED: Record<MemoryChange, string> = {
  edit: 'only its owner, a user it is shared with for writing, or an admin may change it',
  manage: 'only its owner or an admin may do this',
};

/**
 * Checks that the caller may make `change` to memory `id` and returns the scope of its owner: the
 * repositories' owner-keyed statements then address the row (the transaction keeps the caller's
 * identity, so row-level security still checks the caller). 404 when the caller cannot see the
 * memory (so ids reveal nothing), 403 when they can read it but not change it.
 */
export async function ownerScopeFor(
  memories: Pick<MemoryReadRepository, 'access'>,
  principal: Principal,
  tx: Tx,
  id: number,
  change: MemoryChange,
): Promise<TenantScope> {
  const access = await memories.access(principal, tx, id);
  if (!access) throw MemoryError.notFound(id);
  const owner = access.ownerId === principal.userId;
  const allowed = owner || hasScope(principal, 'admin') || (change === 'edit' && access.writable);
  if (allowed) return { tenantId: principal.tenantId, userId: access.ownerId };
  if (!access.readable) throw MemoryError.notFound(id);
  throw new MemoryError(MemoryErrorCode.Forbidden, `Memory ${id} belongs to a teammate: ${DENIED[change]}`);
}
