import { type SqlStatement, type TenantScope } from '@app/persistence';

/**
 * The memory side of indexing: a write marks the memory's index state pending in its own
 * transaction (the embeddings lib's `memory.index` job brings it up to date).
 */
export class MemoryIndexRequestRepository {
  /** Records that the memory's index input changed; the memory.index job brings it up to date. */
  markIndexPendingStatement(scope: TenantScope, memoryId: number, wantedHashHex: string): SqlStatement {
    return {
      sql: `INSERT INTO memory_index_state (memory_id, tenant_id, owner_id, status, wanted_hash)
            VALUES ($1, $2, $3, 'pending', decode($4, 'hex'))
            ON CONFLICT (memory_id) DO UPDATE SET status = 'pending', wanted_hash = EXCLUDED.wanted_hash, updated_at = now()`,
      params: [memoryId, scope.tenantId, scope.userId, wantedHashHex],
    };
  }
}
