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

/** A memory whose `memory.index` job is presumed lost. */
export interface StalePending {
  readonly memoryId: string;
  readonly tenantId: string;
  readonly ownerId: string;
  readonly wantedHash: string;
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

  /**
   * Claims up to `limit` memories (all tenants; a system transaction) whose index state has been
   * pending longer than `olderThanMs` with no undispatched outbox row that would still run their
   * job: their job was lost (Redis flushed or failed over, a dropped add). Touching `updated_at`
   * spaces out the next claim of the same memory by another `olderThanMs`. SKIP LOCKED: never waits
   * on a row a write or a job holds, and two sweeps never claim the same memory.
   */
  async claimStalePending(tx: Tx, query: { olderThanMs: number; limit: number }): Promise<StalePending[]> {
    const { rows } = await tx.query<{
      memory_id: string;
      tenant_id: string;
      owner_id: string;
      wanted: string;
    }>(
      `UPDATE memory_index_state s SET updated_at = now()
        WHERE s.memory_id IN (
          SELECT p.memory_id FROM memory_index_state p
           WHERE p.status = 'pending' AND p.updated_at < now() - make_interval(secs => $1::float8 / 1000)
             AND NOT EXISTS (
               SELECT 1 FROM outbox o
                WHERE o.dispatched_at IS NULL AND o.job_name = 'memory.index'
                  AND o.payload->>'memoryId' = p.memory_id::text)
           ORDER BY p.updated_at
           LIMIT $2
           FOR UPDATE SKIP LOCKED)
        RETURNING s.memory_id::text AS memory_id, s.tenant_id, s.owner_id, encode(s.wanted_hash, 'hex') AS wanted`,
      [query.olderThanMs, query.limit],
    );
    return rows.map((r) => ({
      memoryId: r.memory_id,
      tenantId: r.tenant_id,
      ownerId: r.owner_id,
      wantedHash: r.wanted,
    }));
  }

  /** Memories waiting to be indexed (all tenants) and how long the oldest has waited. */
  async pendingBacklog(tx: Tx): Promise<{ pending: number; oldestAgeSeconds: number }> {
    const { rows } = await tx.query<{ pending: string; oldest: number | null }>(
      `SELECT count(*)::text AS pending, extract(epoch FROM now() - min(updated_at))::float8 AS oldest
         FROM memory_index_state WHERE status = 'pending'`,
    );
    return { pending: Number(rows[0]?.pending ?? 0), oldestAgeSeconds: Math.max(0, rows[0]?.oldest ?? 0) };
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
