import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Agent sessions and the events captured during them.
 *
 * - `sessions`: one coding-agent session of one user. The id may come from the client (so a hook
 *   can start a session and send events without waiting for an answer); `project` is the identity
 *   derived from the git remote or given explicitly.
 * - `session_events`: what happened in a session (prompt, tool call, observation, note,
 *   correction) as a JSON payload that the secret detector has already redacted.
 *   `processed_at` is set by the `sessions.process` job.
 *
 * Policies: a session and its events are private to their user; admins (`app_is_admin()`) read
 * every session of their tenant; another tenant's rows are never visible. Updates are granted
 * column by column, so nobody but the schema owner moves a session to another user or tenant.
 */
export class Sessions1763700000011 implements MigrationInterface {
  name = 'Sessions1763700000011';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sessions (
        id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id   uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        agent       text NOT NULL,
        project     text,
        cwd         text,
        git_remote  text,
        git_branch  text,
        started_at  timestamptz NOT NULL DEFAULT now(),
        ended_at    timestamptz,
        status      text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended', 'abandoned')),
        summary     text,
        created_at  timestamptz NOT NULL DEFAULT now(),
        updated_at  timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX sessions_user_started ON sessions (tenant_id, user_id, started_at DESC, id);
      CREATE INDEX sessions_project_started ON sessions (tenant_id, project, started_at DESC, id)
        WHERE project IS NOT NULL;

      CREATE TABLE session_events (
        id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id     uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        session_id    uuid NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        user_id       uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        kind          text NOT NULL CHECK (kind IN ('prompt', 'tool_call', 'observation', 'note', 'correction')),
        payload       jsonb NOT NULL,
        created_at    timestamptz NOT NULL DEFAULT now(),
        processed_at  timestamptz
      );
      CREATE INDEX session_events_session_time ON session_events (session_id, created_at, id);
    `);

    for (const table of ['sessions', 'session_events']) {
      await q.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
      await q.query(`ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`);
      await q.query(`
        DO $$ BEGIN
          EXECUTE format('CREATE POLICY system_access ON ${table} FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
        END $$`);
    }

    await q.query(`
      CREATE POLICY owner_rows ON sessions FOR ALL TO memory_app
        USING (tenant_id = app_tenant_id() AND user_id = app_user_id())
        WITH CHECK (tenant_id = app_tenant_id() AND user_id = app_user_id());
      CREATE POLICY admin_read ON sessions FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id() AND app_is_admin());

      -- Events go only into one's own session (the sessions policy decides what EXISTS sees).
      CREATE POLICY owner_rows ON session_events FOR ALL TO memory_app
        USING (tenant_id = app_tenant_id() AND user_id = app_user_id())
        WITH CHECK (tenant_id = app_tenant_id() AND user_id = app_user_id()
                    AND EXISTS (SELECT 1 FROM sessions s WHERE s.id = session_id AND s.user_id = app_user_id()));
      CREATE POLICY admin_read ON session_events FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id() AND app_is_admin());

      GRANT SELECT, INSERT ON sessions, session_events TO memory_app;
      GRANT UPDATE (status, summary, ended_at, updated_at) ON sessions TO memory_app;
      GRANT UPDATE (processed_at) ON session_events TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS session_events, sessions`);
  }
}
