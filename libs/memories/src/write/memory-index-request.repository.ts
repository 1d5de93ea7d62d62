import { rowIdSql, type RowId, type SqlStatement, type TenantScope } from '@app/persistence';

/**
 * The memory side of indexing: a write marks the memory's index state pending in its own
 * transaction (the embeddings lib's `memory.index` job brings it up to date).
 */
export class MemoryIndexRequestRepository {
  /** Records that the memory's index input changed; the memory.index job brings it up to date. */
  markIndexPendingStatement(scope: TenantScope, memoryId: RowId, wantedHashHex: string): SqlStatement {
    const params: unknown[] = [scope.tenantId, scope.userId, wantedHashHex];
    const row = rowIdSql(memoryId, params);
    return {
      sql: `INSERT INTO memory_index_state (memory_id, tenant_id, owner_id, status, wanted_hash)
            SELECT ${row.id}, $1::uuid, $2::uuid, 'pending', decode($3, 'hex')${row.from}
            ON CONFLICT (memory_id, tenant_id) DO UPDATE SET status = 'pending', wanted_hash = EXCLUDED.wanted_hash, updated_at = now()`,
      params,
    };
  }
}
