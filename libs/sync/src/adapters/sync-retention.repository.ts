import { type Tx } from '@app/persistence';

/**
 * Raises each tenant's horizon past the highest position a `gone` CTE removed (`tenant_id`, `pos`),
 * in the statement that removes them, so no reader sees the history gone without the raised
 * horizon: older cursors then get 410 instead of silently missing a removal.
 */
const RAISE_HORIZON = `
  raised AS (
    INSERT INTO sync_tenant_state AS s (tenant_id, min_valid_seq)
      SELECT tenant_id, max(pos) + 1 FROM gone GROUP BY tenant_id
      ON CONFLICT (tenant_id) DO UPDATE SET min_valid_seq = greatest(s.min_valid_seq, EXCLUDED.min_valid_seq)
    RETURNING 1)
  SELECT (SELECT count(*)::int FROM gone) AS n, (SELECT count(*) FROM raised) AS tenants`;

/**
 * SQL for the retention job. Runs as system (all tenants). Removing history on purpose, it tells the
 * delete triggers not to record what it removes (`app.sync_retention`) and raises the horizon instead.
 */
export class SyncRetentionRepository {
  /** Removes up to `batchSize` memories soft-deleted before `horizon`; returns how many. */
  async purgeDeletedMemories(tx: Tx, horizon: Date, batchSize: number): Promise<number> {
    await tx.query(`SELECT set_config('app.sync_retention', 'on', true)`);
    // deleted_at is re-checked on the DELETE itself: a concurrent restore that commits first
    // must keep its row (the IN list alone would be re-evaluated against the old snapshot).
    const { rows } = await tx.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM memories WHERE deleted_at < $1 AND id IN (
           SELECT id FROM memories WHERE deleted_at < $1 ORDER BY deleted_at LIMIT $2)
         RETURNING tenant_id, change_seq AS pos),
       ${RAISE_HORIZON}`,
      [horizon, batchSize],
    );
    return rows[0].n;
  }

  /** Removes up to `batchSize` audience changes (tombstones included) older than `horizon`. */
  async purgeAudienceChanges(tx: Tx, horizon: Date, batchSize: number): Promise<number> {
    const { rows } = await tx.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM sync_audience_changes WHERE id IN (
           SELECT id FROM sync_audience_changes WHERE changed_at < $1 ORDER BY changed_at LIMIT $2)
         RETURNING tenant_id, xid AS pos),
       ${RAISE_HORIZON}`,
      [horizon, batchSize],
    );
    return rows[0].n;
  }
}
