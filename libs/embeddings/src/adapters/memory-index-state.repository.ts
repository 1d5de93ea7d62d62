import { Injectable } from '@nestjs/common';
import { type TenantScope, type Tx } from '@app/persistence';

/**
 * `skipped`: the memory was soft-deleted before its input was indexed, so nothing is wanted; a
 * restore marks it `pending` again. A deleted memory whose state is `indexed` keeps it (its vectors
 * stay, and a restore finds them current).
 */
export type MemoryIndexStatus = 'pending' | 'indexed' | 'failed' | 'skipped';

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

/** A memory one `memory.index` request names: matched with its tenant and owner, never by id alone. */
export interface IndexRequest {
  readonly tenantId: string;
  readonly userId: string;
  readonly memoryId: string;
}

/** What the index is built from, with where its index stands. */
export interface IndexableMemory {
  readonly id: string;
  readonly content: string;
  readonly expandedKeywords: string;
  readonly tags: readonly string[];
  readonly deleted: boolean;
  /** Hex input hash last indexed, null before the first success. */
  readonly indexedHash: string | null;
  /** Null: no index state row (a memory written before they existed). */
  readonly status: MemoryIndexStatus | null;
}

/** An index state to settle: the memory and the hex input hash it now holds. */
export interface IndexedInput {
  readonly memoryId: string;
  readonly hash: string;
}

interface IndexableRow {
  id: string;
  content: string;
  expanded_keywords: string;
  tags: string[];
  deleted: boolean;
  indexed_hash: string | null;
  status: MemoryIndexStatus | null;
}

/** A memory that still wants its index: neither soft-deleted nor expired (reads leave both out). */
const LIVE_MEMORY = `m.deleted_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now())`;

/** No `memory.index` row for the memory is still waiting in the outbox (the relay will queue that one). */
const NO_UNDISPATCHED_JOB = `NOT EXISTS (
               SELECT 1 FROM outbox o
                WHERE o.dispatched_at IS NULL AND o.job_name = 'memory.index'
                  AND o.payload->>'memoryId' = p.memory_id::text)`;

interface StateRow {
  memory_id: string;
  status: MemoryIndexStatus;
  indexed_hash: string | null;
  attempts: number;
  times_indexed: number;
}

const toIndexable = (row: IndexableRow): IndexableMemory => ({
  id: row.id,
  content: row.content,
  expandedKeywords: row.expanded_keywords,
  tags: row.tags,
  deleted: row.deleted,
  indexedHash: row.indexed_hash,
  status: row.status,
});

const toState = (row: StateRow): MemoryIndexState => ({
  memoryId: row.memory_id,
  status: row.status,
  indexedHash: row.indexed_hash,
  attempts: row.attempts,
  timesIndexed: row.times_indexed,
});

/**
 * SQL for `memory_index_state`. The index job runs as system over memories of any tenants: requests
 * are matched by tenant, owner and id once (`readIndexable`), later statements use those ids.
 * Tests and status reads are scoped to the owner, and RLS checks them again.
 */
@Injectable()
export class MemoryIndexStateRepository {
  /**
   * The requested memories that still exist with that tenant and owner (soft-deleted ones flagged),
   * with their index state. No locks: the model runs after this transaction, and
   * `lockForIndexing` looks again before anything is written.
   */
  async readIndexable(tx: Tx, requests: readonly IndexRequest[]): Promise<IndexableMemory[]> {
    const { rows } = await tx.query<IndexableRow>(
      `SELECT m.id::text AS id, m.content, m.expanded_keywords, m.tags, m.deleted_at IS NOT NULL AS deleted,
              encode(s.indexed_hash, 'hex') AS indexed_hash, s.status
         FROM unnest($1::bigint[], $2::uuid[], $3::uuid[]) AS r(id, tenant_id, owner_id)
         JOIN memories m ON m.id = r.id AND m.tenant_id = r.tenant_id AND m.owner_id = r.owner_id
         LEFT JOIN memory_index_state s ON s.memory_id = m.id`,
      [requests.map((r) => r.memoryId), requests.map((r) => r.tenantId), requests.map((r) => r.userId)],
    );
    return rows.map(toIndexable);
  }

  /** Creates pending states for memories written before index states existed; no-op where present. */
  async ensure(tx: Tx, inputs: readonly IndexedInput[]): Promise<void> {
    if (inputs.length === 0) return;
    await tx.query(
      `INSERT INTO memory_index_state (memory_id, tenant_id, owner_id, status, wanted_hash)
       SELECT m.id, m.tenant_id, m.owner_id, 'pending', decode(v.hash, 'hex')
         FROM unnest($1::bigint[], $2::text[]) AS v(memory_id, hash)
         JOIN memories m ON m.id = v.memory_id
       ON CONFLICT (memory_id, tenant_id) DO NOTHING`,
      [inputs.map((i) => i.memoryId), inputs.map((i) => i.hash)],
    );
  }

  /**
   * Locks the memories (KEY SHARE) and then their index states (FOR UPDATE), both in id order, and
   * returns them as they are now. Lock order (docs/security.md): the memory row first, then its index
   * state, as an update takes them; an update of one of these memories waits until this transaction
   * ends, and two index jobs holding the same memory serialise on the state row.
   */
  async lockForIndexing(tx: Tx, memoryIds: readonly string[]): Promise<IndexableMemory[]> {
    const { rows: memories } = await tx.query<Omit<IndexableRow, 'indexed_hash' | 'status'>>(
      `SELECT id::text AS id, content, expanded_keywords, tags, deleted_at IS NOT NULL AS deleted
         FROM memories WHERE id = ANY($1::bigint[]) ORDER BY id FOR KEY SHARE`,
      [memoryIds],
    );
    const { rows: states } = await tx.query<{
      memory_id: string;
      indexed_hash: string | null;
      status: MemoryIndexStatus;
    }>(
      `SELECT memory_id::text AS memory_id, encode(indexed_hash, 'hex') AS indexed_hash, status
         FROM memory_index_state WHERE memory_id = ANY($1::bigint[]) ORDER BY memory_id FOR UPDATE`,
      [memoryIds],
    );
    const stateOf = new Map(states.map((s) => [s.memory_id, s]));
    return memories.flatMap((m) => {
      const state = stateOf.get(m.id);
      return state ? [toIndexable({ ...m, indexed_hash: state.indexed_hash, status: state.status })] : [];
    });
  }

  async markIndexed(tx: Tx, inputs: readonly IndexedInput[]): Promise<void> {
    if (inputs.length === 0) return;
    await tx.query(
      `UPDATE memory_index_state s
          SET status = 'indexed', indexed_hash = decode(v.hash, 'hex'), indexed_at = now(),
              times_indexed = times_indexed + 1, attempts = attempts + 1, last_error = NULL, updated_at = now()
         FROM unnest($1::bigint[], $2::text[]) AS v(memory_id, hash)
        WHERE s.memory_id = v.memory_id`,
      [inputs.map((i) => i.memoryId), inputs.map((i) => i.hash)],
    );
  }

  /** The index already matches (e.g. an edit was reverted): settle the status, count nothing. */
  async markUpToDate(tx: Tx, memoryIds: readonly string[]): Promise<void> {
    if (memoryIds.length === 0) return;
    await tx.query(
      `UPDATE memory_index_state SET status = 'indexed', last_error = NULL, updated_at = now()
        WHERE memory_id = ANY($1::bigint[]) AND status <> 'indexed'`,
      [memoryIds],
    );
  }

  /**
   * The memories were found soft-deleted under the index job's locks: a pending state settles as
   * `skipped` (nothing to index until a restore), so neither the sweep nor the backlog sees it again.
   */
  async markSkipped(tx: Tx, memoryIds: readonly string[]): Promise<void> {
    if (memoryIds.length === 0) return;
    await tx.query(
      `UPDATE memory_index_state SET status = 'skipped', last_error = NULL, updated_at = now()
        WHERE memory_id = ANY($1::bigint[]) AND status = 'pending'`,
      [memoryIds],
    );
  }

  /** Counts a failed attempt per memory; `final` marks the states failed (no retry follows). */
  async recordFailures(tx: Tx, failures: ReadonlyMap<string, string>, final: boolean): Promise<void> {
    if (failures.size === 0) return;
    await tx.query(
      `UPDATE memory_index_state s
          SET attempts = attempts + 1, last_error = left(v.error, 2000),
              status = CASE WHEN $3::boolean THEN 'failed' ELSE status END, updated_at = now()
         FROM unnest($1::bigint[], $2::text[]) AS v(memory_id, error)
        WHERE s.memory_id = v.memory_id`,
      [[...failures.keys()], [...failures.values()], final],
    );
  }

  /**
   * Claims up to `limit` live memories (all tenants; a system transaction) whose index state has
   * been pending longer than `olderThanMs` with no undispatched outbox row that would still run
   * their job: their job was lost (Redis flushed or failed over, a dropped add). A soft-deleted or
   * expired memory is never claimed: it wants no index. Touching `updated_at` spaces out the next
   * claim of the same memory by another `olderThanMs`. SKIP LOCKED on the state rows only: never
   * waits on a row a write or a job holds, and two sweeps never claim the same memory.
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
            JOIN memories m ON m.id = p.memory_id
           WHERE p.status = 'pending' AND p.updated_at < now() - make_interval(secs => $1::float8 / 1000)
             AND ${LIVE_MEMORY}
             AND ${NO_UNDISPATCHED_JOB}
           ORDER BY p.updated_at
           LIMIT $2
           FOR UPDATE OF p SKIP LOCKED)
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

  /**
   * Settles up to `limit` states left pending longer than `olderThanMs` by soft-deleted memories
   * (their job found them deleted, or was lost before it ran) as `skipped`; returns how many. A
   * restore that commits first has made the state fresh, and one that commits later waits for the
   * state row's lock and then marks it pending again.
   */
  async skipDeletedPending(tx: Tx, query: { olderThanMs: number; limit: number }): Promise<number> {
    const result = await tx.query(
      `UPDATE memory_index_state s SET status = 'skipped', last_error = NULL, updated_at = now()
        WHERE s.memory_id IN (
          SELECT p.memory_id FROM memory_index_state p
            JOIN memories m ON m.id = p.memory_id
           WHERE p.status = 'pending' AND p.updated_at < now() - make_interval(secs => $1::float8 / 1000)
             AND m.deleted_at IS NOT NULL
           ORDER BY p.updated_at
           LIMIT $2
           FOR UPDATE OF p SKIP LOCKED)`,
      [query.olderThanMs, query.limit],
    );
    return result.rowCount;
  }

  /**
   * Live memories waiting to be indexed (all tenants) and how long the oldest has waited. A deleted
   * or expired memory is no backlog, even before its pending state is settled as `skipped`.
   */
  async pendingBacklog(tx: Tx): Promise<{ pending: number; oldestAgeSeconds: number }> {
    const { rows } = await tx.query<{ pending: string; oldest: number | null }>(
      `SELECT count(*)::text AS pending, extract(epoch FROM now() - min(p.updated_at))::float8 AS oldest
         FROM memory_index_state p JOIN memories m ON m.id = p.memory_id
        WHERE p.status = 'pending' AND ${LIVE_MEMORY}`,
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
