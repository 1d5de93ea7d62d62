import { isoTimestamp, type TenantScope, type Tx } from '@app/persistence';
import { type SyncedMemory, type SyncTombstone } from '../domain/sync';
import { toMemory, type MemoryRow } from '@app/memories';

/** The owner is the caller, so the username is looked up once (an InitPlan), not joined per row. */
const SYNC_COLUMNS = `
  m.id, m.change_seq, m.content, m.category, m.tags, m.expanded_keywords, m.importance, m.project,
  m.is_sensitive, m.visibility, m.review_state, (SELECT username FROM users WHERE id = $2) AS owner,
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

const toSynced = (row: SyncRow): SyncedMemory => ({ ...toMemory(row), changeSeq: Number(row.change_seq) });

const toTombstone = (row: TombstoneRow): SyncTombstone => ({
  id: Number(row.id),
  changeSeq: Number(row.change_seq),
  deletedAt: row.deleted_at,
});

/** Where a seed dump starts, read before its rows. */
export interface SeedDumpStart {
  readonly epoch: number;
  /** Every change of the caller's own rows below it is in the dump that follows. */
  readonly horizon: number;
  readonly serverTime: string;
}

/**
 * SQL for the seed-compatible calls (full dump and `?since=`). Always the caller's own rows (owner
 * = user), never team-visible or shared ones: the seed contract is a copy of what the user owns.
 * Row-level security would allow more; the explicit owner filter keeps the contract.
 */
export class MemorySyncRepository {
  /**
   * The tenant's history epoch, the current horizon and the time, read before a dump starts.
   * The dump's own snapshot is taken later, so it holds every own change below this horizon.
   */
  async readStart(scope: TenantScope, tx: Tx): Promise<SeedDumpStart> {
    const { rows } = await tx.query<{ epoch: number | null; horizon: string; server_time: string }>(
      `SELECT (SELECT epoch FROM sync_tenant_state WHERE tenant_id = $1) AS epoch,
              sync_horizon() AS horizon,
              ${isoTimestamp('clock_timestamp()')} AS server_time`,
      [scope.tenantId],
    );
    const row = rows[0];
    return { epoch: row.epoch ?? 1, horizon: Number(row.horizon), serverTime: row.server_time };
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

  /**
   * The caller's own memories purged (or moved away) at or after `since` minus the overlap: the
   * records addressed to their owner. Bounded by retention.
   */
  async tombstonesSince(
    scope: TenantScope,
    tx: Tx,
    since: string,
    overlapMs: number,
  ): Promise<SyncTombstone[]> {
    const { rows } = await tx.query<TombstoneRow>(
      `SELECT id, change_seq, deleted_at FROM (
         SELECT DISTINCT ON (memory_id) memory_id AS id, xid AS change_seq,
                ${isoTimestamp('changed_at')} AS deleted_at
           FROM sync_audience_changes
          WHERE user_id = $2 AND tenant_id = $1 AND owned
            AND changed_at >= $3::timestamptz - make_interval(secs => $4::double precision / 1000)
          ORDER BY memory_id, xid DESC) t
        ORDER BY change_seq, id`,
      [scope.tenantId, scope.userId, since, overlapMs],
    );
    return rows.map(toTombstone);
  }
}
