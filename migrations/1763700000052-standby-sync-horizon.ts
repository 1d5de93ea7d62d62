import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `sync_horizon()` on a read replica (a hot standby). A standby's snapshot keeps the transactions
 * still running on the primary among its sub-transaction ids, not in `xip`, and
 * `pg_current_snapshot()` copies only `xip`: the primary's formula found no running transaction
 * there and answered the snapshot's `xmax`, past writes the standby had not yet seen commit, so a
 * sync page or recall index delta read on a replica could move past a change for good. On a standby
 * the horizon is the snapshot's `xmin` (the standby computes it from every transaction it knows to
 * be running); it cannot leave out other databases' transactions, so it is lower, never wrong.
 */
export class StandbySyncHorizon1763700000052 implements MigrationInterface {
  name = 'StandbySyncHorizon1763700000052';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION sync_horizon() RETURNS bigint LANGUAGE sql STABLE AS $$
        SELECT CASE WHEN pg_is_in_recovery() THEN pg_snapshot_xmin(s)::text::bigint ELSE coalesce(
                 (SELECT min(x::text::bigint) FROM pg_snapshot_xip(s) x
                   WHERE NOT EXISTS (
                     SELECT 1 FROM pg_stat_get_activity(NULL) a
                      WHERE a.datid <> (SELECT oid FROM pg_database WHERE datname = current_database())
                        AND a.backend_xid::text = (x::text::bigint % 4294967296)::text)),
                 pg_snapshot_xmax(s)::text::bigint) END
          FROM pg_current_snapshot() s
      $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION sync_horizon() RETURNS bigint LANGUAGE sql STABLE AS $$
        SELECT coalesce(
                 (SELECT min(x::text::bigint) FROM pg_snapshot_xip(s) x
                   WHERE NOT EXISTS (
                     SELECT 1 FROM pg_stat_get_activity(NULL) a
                      WHERE a.datid <> (SELECT oid FROM pg_database WHERE datname = current_database())
                        AND a.backend_xid::text = (x::text::bigint % 4294967296)::text)),
                 pg_snapshot_xmax(s)::text::bigint)
          FROM pg_current_snapshot() s
      $$;
    `);
  }
}
