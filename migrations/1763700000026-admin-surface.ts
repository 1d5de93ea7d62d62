import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The admin surface: audit log paging and retention, key rotation.
 *
 * - `GET /api/admin/audit` pages a tenant's rows newest first by (created_at, id): the tenant/time
 *   index gains `id` so the keyset needs no sort. The retention job deletes across tenants by age; a
 *   BRIN index on the append-only `created_at` finds old rows for almost no write cost (every memory
 *   write appends an audit row, so a second btree would tax the store path).
 * - A rotated key names its replacement (`replaced_by`); the old key's grace ends at its `expires_at`.
 */
export class AdminSurface1763700000026 implements MigrationInterface {
  name = 'AdminSurface1763700000026';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX audit_log_tenant_page ON audit_log (tenant_id, created_at DESC, id DESC);
      DROP INDEX IF EXISTS audit_log_tenant_time;
      CREATE INDEX audit_log_created_brin ON audit_log USING brin (created_at);

      ALTER TABLE api_keys ADD COLUMN replaced_by uuid REFERENCES api_keys(id) ON DELETE SET NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_keys DROP COLUMN IF EXISTS replaced_by;
      DROP INDEX IF EXISTS audit_log_created_brin;
      CREATE INDEX IF NOT EXISTS audit_log_tenant_time ON audit_log (tenant_id, created_at DESC);
      DROP INDEX IF EXISTS audit_log_tenant_page;
    `);
  }
}
