import { type Tx } from '@app/persistence';

/**
 * SQL for the tombstone retention job. Runs as system (all tenants). Removing history on purpose,
 * it tells the delete trigger not to write tombstones for what it removes and instead raises each
 * affected user's `min_valid_seq` to the highest sequence number it removed, in the same
 * transaction, so no reader can see the rows gone without also seeing the raised horizon.
 */
export class SyncRetentionRepository {
  /** Removes up to `batchSize` soft-deleted memories deleted before `horizon`; returns how many. */
  async purgeDeletedMemories(tx: Tx, horizon: Date, batchSize: number): Promise<number> {
    await tx.query(`SELECT set_config('app.sync_retention', 'on', true)`);
    // deleted_at is re-checked on the DELETE itself: a concurrent restore that commits first
    // must keep its row (the IN list alone would be re-evaluated against the old snapshot).
    const { rows } = await tx.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM memories WHERE deleted_at < $1 AND id IN (
           SELECT id FROM memories WHERE deleted_at < $1 ORDER BY deleted_at LIMIT $2)
         RETURNING owner_id, change_seq),
       raised AS (
         UPDATE sync_state s SET min_valid_seq = greatest(s.min_valid_seq, g.seq)
           FROM (SELECT owner_id, max(change_seq) AS seq FROM gone GROUP BY owner_id) g
          WHERE s.user_id = g.owner_id
         RETURNING 1)
       SELECT (SELECT count(*)::int FROM gone) AS n, (SELECT count(*) FROM raised) AS users`,
      [horizon, batchSize],
    );
    return rows[0].n;
  }

  /** Removes up to `batchSize` tombstones older than `horizon`; returns how many. */
  async purgeTombstones(tx: Tx, horizon: Date, batchSize: number): Promise<number> {
    const { rows } = await tx.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM memory_tombstones WHERE deleted_at < $1 AND memory_id IN (
           SELECT memory_id FROM memory_tombstones WHERE deleted_at < $1 ORDER BY deleted_at LIMIT $2)
         RETURNING owner_id, change_seq),
       raised AS (
         UPDATE sync_state s SET min_valid_seq = greatest(s.min_valid_seq, g.seq)
           FROM (SELECT owner_id, max(change_seq) AS seq FROM gone GROUP BY owner_id) g
          WHERE s.user_id = g.owner_id
         RETURNING 1)
       SELECT (SELECT count(*)::int FROM gone) AS n, (SELECT count(*) FROM raised) AS users`,
      [horizon, batchSize],
    );
    return rows[0].n;
  }
}
