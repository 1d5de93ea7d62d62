import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Team session visibility: a tenant setting (off by default) that lets every user of the tenant
 * read the sessions and captured events of their teammates. Reading only: the write policies of
 * migration 1763700000011 still name the session's own user, so nobody writes into a teammate's
 * session whatever the setting.
 *
 * - `tenants.team_session_visibility`: the setting. `app_team_sessions_visible()` reads it for the
 *   transaction's tenant (through the tenants read policy, so it can only ever see its own tenant).
 * - `team_read` policies on `sessions` and `session_events`: SELECT within the tenant when it is on.
 * - Admins of a tenant change the setting: a column grant plus an UPDATE policy for `app_is_admin()`,
 *   limited to their own tenant row.
 */
export class TeamSessionVisibility1763700000013 implements MigrationInterface {
  name = 'TeamSessionVisibility1763700000013';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE tenants ADD COLUMN team_session_visibility boolean NOT NULL DEFAULT false;

      CREATE FUNCTION app_team_sessions_visible() RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
        AS $$ SELECT coalesce((SELECT t.team_session_visibility FROM tenants t WHERE t.id = app_tenant_id()), false) $$;
      GRANT EXECUTE ON FUNCTION app_team_sessions_visible() TO memory_app;

      CREATE POLICY team_read ON sessions FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id() AND app_team_sessions_visible());
      CREATE POLICY team_read ON session_events FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id() AND app_team_sessions_visible());

      CREATE POLICY admin_settings ON tenants FOR UPDATE TO memory_app
        USING (id = app_tenant_id() AND app_is_admin())
        WITH CHECK (id = app_tenant_id() AND app_is_admin());
      GRANT UPDATE (team_session_visibility) ON tenants TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      REVOKE UPDATE (team_session_visibility) ON tenants FROM memory_app;
      DROP POLICY IF EXISTS admin_settings ON tenants;
      DROP POLICY IF EXISTS team_read ON session_events;
      DROP POLICY IF EXISTS team_read ON sessions;
      DROP FUNCTION IF EXISTS app_team_sessions_visible();
      ALTER TABLE tenants DROP COLUMN IF EXISTS team_session_visibility;
    `);
  }
}
