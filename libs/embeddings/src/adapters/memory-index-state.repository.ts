import { Injectable } from '@nestjs/common';
import { type TenantScope, type Tx } from '@app/persistence';

export type MemoryIndexStatus = 'pending' | 'indexed' | 'failed';

export interface MemoryIndexState {
  readonly memoryId: string;
  readonly status: MemoryIndexStatus;
  /** Hex sha256 of the index input last indexed, null before the first success. */
  readonly indexedHash: string | null;
  readonly attempts: number;
  readonly timesIndexed: number;
}

/** What the index is built from, read under the state row's lock. */
export interface IndexableMemory {
  readonly id: string;
  readonly tenantId: string;
  readonly ownerId: string;
  readonly content: string;
  readonly expandedKeywords: string;
  readonly tags: readonly string[];
  readonly deleted: boolean;
}

interface StateRow {
  memory_id: string;
  status: MemoryIndexStatus;
  indexed_hash: string | null;
  attempts: number;
  times_indexed: number;
}

const toState = (row: StateRow): MemoryIndexState => ({
  memoryId: row.memory_id,
  status: row.status,
  indexedHash: row.indexed_hash,
  attempts: row.attempts,
  timesIndexed: row.times_indexed,
});

/** SQL for `memory_index_state`; every statement is scoped to the owner, RLS checks it again. */
@Injectable()
export class MemoryIndexStateRepository {
  /**
   * Locks the memory's index state row for this transaction. Two workers holding the same job
   * serialise here, so the second one sees the first one's result and does nothing.
   */
  async lock(scope: TenantScope, tx: Tx, memoryId: string): Promise<MemoryIndexState | null> {
    const { rows } = await tx.query<StateRow>(
      `SELECT memory_id::text AS memory_id, status, encode(indexed_hash, 'hex') AS indexed_hash, attempts, times_indexed
         FROM memory_index_state
        WHERE memory_id = $1 AND tenant_id = $2 AND owner_id = $3
        FOR UPDATE`,
      [memoryId, scope.tenantId, scope.userId],
    );
    return rows[0] ? toState(rows[0]) : null;
  }

  /** Creates a pending state row for a memory written before its state existed; no-op if present. */
  async ensure(scope: TenantScope, tx: Tx, memoryId: string, wantedHashHex: string): Promise<void> {
    await tx.query(
      `INSERT INTO memory_index_state (memory_id, tenant_id, owner_id, status, wanted_hash)
       VALUES ($1, $2, $3, 'pending', decode($4, 'hex'))
       ON CONFLICT (memory_id) DO NOTHING`,
      [memoryId, scope.tenantId, scope.userId, wantedHashHex],
    );
  }

  /**
   * The caller's own memory (soft-deleted ones included, flagged), or null once purged. Takes a
   * KEY SHARE lock on the row: the first lock of the job, so a concurrent update (which locks the row
   * FOR UPDATE before it writes the index state) either finishes first or waits for this job.
   */
  async findIndexable(scope: TenantScope, tx: Tx, memoryId: string): Promise<IndexableMemory | null> {
    const { rows } = await tx.query<{
      id: string;
      tenant_id: string;
      owner_id: string;
      content: string;
      expanded_keywords: string;
      tags: string[];
      deleted: boolean;
    }>(
      `SELECT id::text AS id, tenant_id, owner_id, content, expanded_keywords, tags, deleted_at IS NOT NULL AS deleted
         FROM memories
        WHERE id = $1 AND tenant_id = $2 AND owner_id = $3
        FOR KEY SHARE`,
      [memoryId, scope.tenantId, scope.userId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      tenantId: row.tenant_id,
      ownerId: row.owner_id,
      content: row.content,
      expandedKeywords: row.expanded_keywords,
      tags: row.tags,
      deleted: row.deleted,
    };
  }

  async markIndexed(scope: TenantScope, tx: Tx, memoryId: string, indexedHashHex: string): Promise<void> {
    await tx.query(
      `UPDATE memory_index_state
          SET status = 'indexed', indexed_hash = decode($4, 'hex'), indexed_at = now(),
              times_indexed = times_indexed + 1, attempts = attempts + 1, last_error = NULL, updated_at = now()
        WHERE memory_id = $1 AND tenant_id = $2 AND owner_id = $3`,
      [memoryId, scope.tenantId, scope.userId, indexedHashHex],
    );
  }

  /** The index already matches (e.g. an edit was reverted): settle the status, count nothing. */
  async markUpToDate(scope: TenantScope, tx: Tx, memoryId: string): Promise<void> {
    await tx.query(
      `UPDATE memory_index_state SET status = 'indexed', last_error = NULL, updated_at = now()
        WHERE memory_id = $1 AND tenant_id = $2 AND owner_id = $3 AND status <> 'indexed'`,
      [memoryId, scope.tenantId, scope.userId],
    );
  }

  /** Counts a failed attempt; `final` marks the state failed (no retry follows). */
  async recordFailure(
    scope: TenantScope,
    tx: Tx,
    memoryId: string,
    error: string,
    final: boolean,
  ): Promise<void> {
    await tx.query(
      `UPDATE memory_index_state
          SET attempts = attempts + 1, last_error = left($4, 2000),
              status = CASE WHEN $5::boolean THEN 'failed' ELSE status END, updated_at = now()
        WHERE memory_id = $1 AND tenant_id = $2 AND owner_id = $3`,
      [memoryId, scope.tenantId, scope.userId, error, final],
    );
  }

  /** Read-only view for tests and status endpoints. */
  async find(scope: TenantScope, tx: Tx, memoryId: string): Promise<MemoryIndexState | null> {
    const { rows } = await tx.query<StateRow>(
      `SELECT memory_id::text AS memory_id, status, encode(indexed_hash, 'hex') AS indexed_hash, attempts, times_indexed
         FROM memory_index_state
        WHERE memory_id = $1 AND tenant_id = $2 AND owner_id = $3`,
      [memoryId, scope.tenantId, scope.userId],
    );
    return rows[0] ? toState(rows[0]) : null;
  }
}
