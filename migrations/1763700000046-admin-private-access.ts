import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Private means private, admins included, unless the tenant says otherwise.
 *
 * - `tenants.admin_private_access` (default off): whether an admin key may read and change the
 *   members' private memories at all. Admins change it, like the other tenant settings.
 * - `app_is_tenant_admin()` reads `app.tenant_admin`, set for every admin key: it guards what admins
 *   do as admins (the tenant's settings, reading sessions).
 * - `app_is_admin()`, which every memories policy, the share policies, the sync feed and the text
 *   search functions ask for "reads every memory of the tenant", is now true only when the
 *   transaction says so (`app.admin`, set for an admin key that gave a reason, which the API audits)
 *   **and** the tenant allows it: switching the setting off takes effect at the next statement.
 *
 * Erasure and user deletion run as the system, not through this function, so an admin still erases a
 * member without reading their memories.
 */
export class AdminPrivateAccess1763700000046 implements MigrationInterface {
  name = 'AdminPrivateAccess1763700000046';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE tenants ADD COLUMN admin_private_access boolean NOT NULL DEFAULT false;
      GRANT UPDATE (admin_private_access) ON tenants TO memory_app;

      CREATE FUNCTION app_is_tenant_admin() RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
        AS $$ SELECT coalesce(current_setting('app.tenant_admin', true), '') = 'on' $$;
      GRANT EXECUTE ON FUNCTION app_is_tenant_admin() TO memory_app;

      CREATE OR REPLACE FUNCTION app_is_admin() RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
        AS $$ SELECT coalesce(current_setting('app.admin', true), '') = 'on'
                 AND coalesce((SELECT t.admin_private_access FROM tenants t WHERE t.id = app_tenant_id()), false) $$;

      ALTER POLICY admin_read ON sessions
        USING (tenant_id = (SELECT app_tenant_id()) AND (SELECT app_is_tenant_admin()));
      ALTER POLICY admin_read ON session_events
        USING (tenant_id = (SELECT app_tenant_id()) AND (SELECT app_is_tenant_admin()));
      ALTER POLICY admin_settings ON tenants
        USING (id = (SELECT app_tenant_id()) AND (SELECT app_is_tenant_admin()))
        WITH CHECK (id = (SELECT app_tenant_id()) AND (SELECT app_is_tenant_admin()));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER POLICY admin_settings ON tenants
        USING (id = (SELECT app_tenant_id()) AND (SELECT app_is_admin()))
        WITH CHECK (id = (SELECT app_tenant_id()) AND (SELECT app_is_admin()));
      ALTER POLICY admin_read ON session_events
        USING (tenant_id = (SELECT app_tenant_id()) AND (SELECT app_is_admin()));
      ALTER POLICY admin_read ON sessions
        USING (tenant_id = (SELECT app_tenant_id()) AND (SELECT app_is_admin()));
      CREATE OR REPLACE FUNCTION app_is_admin() RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
        AS $$ SELECT coalesce(current_setting('app.admin', true), '') = 'on' $$;
      DROP FUNCTION app_is_tenant_admin();
      REVOKE UPDATE (admin_private_access) ON tenants FROM memory_app;
      ALTER TABLE tenants DROP COLUMN admin_private_access;
    `);
  }
}
