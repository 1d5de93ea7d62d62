import { isoTimestamp, type TenantScope, type Tx } from '@app/persistence';
import { INITIAL_SYNC_STATE, type SyncedMemory, type SyncState, type SyncTombstone } from '../domain/sync';
import { toMemory, type MemoryRow } from '@app/memories';

/** The owner is the caller, so the username is looked up once (an InitPlan), not joined per row. */
const SYNC_COLUMNS = `
  m.id, m.change_seq, m.content, m.category, m.tags, m.expanded_keywords, m.importance, m.project,
  m.is_sensitive, m.visibility, (SELECT username FROM users WHERE id = $2) AS owner,
  ${isoTimestamp('m.created_at')} AS created_at, ${isoTimestamp('m.updated_at')} AS updated_at, ${isoTimestamp('m.deleted_at')} AS deleted_at, ${isoTimestamp('m.expires_at')} AS expires_at`;

const DUMP_CURSOR = 'memory_sync_dump';

interface SyncRow extends MemoryRow {
  change_seq: string | number;
}

interface TombstoneRow {
  id: string | number;
  change_seq: string | number;
  deleted_at: string;
}

interface StateRow {
  last_seq: string | number;
  min_valid_seq: string | number;
  epoch: number;
}

const toSynced = (row: SyncRow): SyncedMemory => ({ ...toMemory(row), changeSeq: Number(row.change_seq) });

const toTombstone = (row: TombstoneRow): SyncTombstone => ({
  id: Number(row.id),
  changeSeq: Number(row.change_seq),
  deletedAt: row.deleted_at,
});

const toState = (row: StateRow | null | undefined): SyncState =>
  row
    ? { lastSeq: Number(row.last_seq), minValidSeq: Number(row.min_valid_seq), epoch: row.epoch }
    : INITIAL_SYNC_STATE;

export interface ChangesAfter {
  readonly state: SyncState;
  readonly serverTime: string;
  readonly memories: SyncedMemory[];
  readonly tombstones: SyncTombstone[];
}

/**
 * SQL for sync reads. Always the caller's own rows (owner = user), never team-visible ones: a sync
 * is a copy of what the user owns. Row-level security enforces the same underneath.
 */
export class MemorySyncRepository {
  /**
   * Up to `limit` memories and up to `limit` tombstones after `afterSeq`, and the user's sync state,
   * all read in ONE statement so they share a snapshot: a purge or write committing between two
   * reads can then neither hide a row behind the cursor nor slip past the horizon check.
   */
  async changesAfter(scope: TenantScope, tx: Tx, afterSeq: number, limit: number): Promise<ChangesAfter> {
    const { rows } = await tx.query<{
      state: StateRow | null;
      memories: SyncRow[];
      tombstones: TombstoneRow[];
      server_time: string;
    }>(
      `SELECT
         (SELECT row_to_json(s) FROM (SELECT last_seq, min_valid_seq, epoch FROM sync_state
            WHERE user_id = $2 AND tenant_id = $1) s) AS state,
         (SELECT coalesce(json_agg(c ORDER BY c.change_seq), '[]'::json) FROM (
            SELECT ${SYNC_COLUMNS} FROM memories m
             WHERE m.tenant_id = $1 AND m.owner_id = $2 AND m.change_seq > $3
             ORDER BY m.change_seq LIMIT $4) c) AS memories,
         (SELECT coalesce(json_agg(t ORDER BY t.change_seq), '[]'::json) FROM (
            SELECT memory_id AS id, change_seq, ${isoTimestamp('deleted_at')} AS deleted_at FROM memory_tombstones
             WHERE tenant_id = $1 AND owner_id = $2 AND change_seq > $3
             ORDER BY change_seq LIMIT $4) t) AS tombstones,
         ${isoTimestamp('clock_timestamp()')} AS server_time`,
      [scope.tenantId, scope.userId, afterSeq, limit],
    );
    const row = rows[0];
    return {
      state: toState(row.state),
      serverTime: row.server_time,
      memories: row.memories.map(toSynced),
      tombstones: row.tombstones.map(toTombstone),
    };
  }

  /** The user's sync state and the current time, read before a seed dump starts. */
  async readState(scope: TenantScope, tx: Tx): Promise<{ state: SyncState; serverTime: string }> {
    const { rows } = await tx.query<Partial<StateRow> & { server_time: string }>(
      `SELECT s.last_seq, s.min_valid_seq, s.epoch, ${isoTimestamp('clock_timestamp()')} AS server_time
         FROM (SELECT 1) one
         LEFT JOIN sync_state s ON s.user_id = $2 AND s.tenant_id = $1`,
      [scope.tenantId, scope.userId],
    );
    const row = rows[0];
    const found = row.last_seq != null && row.min_valid_seq != null && row.epoch != null;
    return {
      state: found ? toState(row as StateRow) : INITIAL_SYNC_STATE,
      serverTime: row.server_time,
    };
  }

  /**
   * Opens a server-side cursor over the rows a seed call returns, so they are fetched in batches
   * instead of materialised: live rows only, or (with `since`) every row, deleted or not, whose
   * update or deletion is at or after `since` minus `overlapMs`.
   */
  async openDump(scope: TenantScope, tx: Tx, filter: { since?: string; overlapMs: number }): Promise<void> {
    const params: unknown[] = [scope.tenantId, scope.userId];
    let where = 'm.deleted_at IS NULL';
    if (filter.since !== undefined) {
      params.push(filter.since, filter.overlapMs);
      where = `(m.updated_at >= $3::timestamptz - make_interval(secs => $4::double precision / 1000)
             OR m.deleted_at >= $3::timestamptz - make_interval(secs => $4::double precision / 1000))`;
    }
    await tx.query(
      `DECLARE ${DUMP_CURSOR} NO SCROLL CURSOR FOR
         SELECT ${SYNC_COLUMNS} FROM memories m
          WHERE m.tenant_id = $1 AND m.owner_id = $2 AND ${where}
          ORDER BY m.change_seq`,
      params,
    );
  }

  async fetchDump(tx: Tx, batchSize: number): Promise<SyncedMemory[]> {
    const { rows } = await tx.query<SyncRow>(`FETCH FORWARD ${Math.trunc(batchSize)} FROM ${DUMP_CURSOR}`);
    return rows.map(toSynced);
  }

  async closeDump(tx: Tx): Promise<void> {
    await tx.query(`CLOSE ${DUMP_CURSOR}`);
  }

  /** Tombstones (purged memories) at or after `since` minus the overlap; bounded by retention. */
  async tombstonesSince(
    scope: TenantScope,
    tx: Tx,
    since: string,
    overlapMs: number,
  ): Promise<SyncTombstone[]> {
    const { rows } = await tx.query<TombstoneRow>(
      `SELECT memory_id AS id, change_seq, ${isoTimestamp('deleted_at')} AS deleted_at FROM memory_tombstones
        WHERE tenant_id = $1 AND owner_id = $2
          AND deleted_at >= $3::timestamptz - make_interval(secs => $4::double precision / 1000)
        ORDER BY change_seq`,
      [scope.tenantId, scope.userId, since, overlapMs],
    );
    return rows.map(toTombstone);
  }
}
