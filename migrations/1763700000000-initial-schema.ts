import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenancy, memories, outbox and audit tables with row-level security.
 *
 * Roles: the migrating user owns every table. Requests run as `memory_app` (NOLOGIN, not
 * owner, not BYPASSRLS) via `set_config('role', …, true)`. Every tenant table has FORCE RLS;
 * memory_app's policies key on `app.tenant_id` / `app.user_id`, and the owner's policy only on
 * `app.system`, so a connection with no setting sees zero rows whoever it is (superusers aside).
 */
export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS vector`);
    await q.query(`
      DO $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'memory_app') THEN
          CREATE ROLE memory_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
        END IF;
        -- A non-superuser owner needs membership to switch to the role.
        BEGIN
          EXECUTE format('GRANT memory_app TO %I', current_user);
        EXCEPTION WHEN OTHERS THEN NULL;
        END;
      END $$`);

    await q.query(`
      CREATE FUNCTION app_tenant_id() RETURNS uuid LANGUAGE sql STABLE PARALLEL SAFE
        AS $$ SELECT NULLIF(current_setting('app.tenant_id', true), '')::uuid $$;
      CREATE FUNCTION app_user_id() RETURNS uuid LANGUAGE sql STABLE PARALLEL SAFE
        AS $$ SELECT NULLIF(current_setting('app.user_id', true), '')::uuid $$;
      CREATE FUNCTION app_is_system() RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
        AS $$ SELECT coalesce(current_setting('app.system', true), '') = 'on' $$;
      -- array_to_string is only STABLE; tags are text[], for which it is immutable in practice.
      CREATE FUNCTION tags_to_text(text[]) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT coalesce(array_to_string($1, ' '), '') $$;
    `);

    await q.query(`
      CREATE TABLE tenants (
        id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        slug        text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
        name        text NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE users (
        id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id    uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        username     text NOT NULL CHECK (username ~ '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$'),
        display_name text,
        is_admin     boolean NOT NULL DEFAULT false,
        disabled_at  timestamptz,
        created_at   timestamptz NOT NULL DEFAULT now(),
        UNIQUE (tenant_id, username)
      );

      CREATE TABLE api_keys (
        id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id     uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        user_id       uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name          text NOT NULL DEFAULT '',
        key_hash      bytea NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
        key_prefix    text NOT NULL,
        scopes        text[] NOT NULL,
        source        text NOT NULL CHECK (source IN ('managed', 'env')),
        expires_at    timestamptz,
        revoked_at    timestamptz,
        last_used_at  timestamptz,
        created_by    uuid,
        created_at    timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX api_keys_user ON api_keys (tenant_id, user_id);

      CREATE TABLE memories (
        id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id         uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        owner_id          uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        content           text NOT NULL,
        category          text NOT NULL DEFAULT 'facts',
        tags              text[] NOT NULL DEFAULT '{}',
        expanded_keywords text NOT NULL DEFAULT '',
        importance        double precision NOT NULL DEFAULT 0.5 CHECK (importance >= 0 AND importance <= 1),
        project           text,
        visibility        text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'team')),
        is_sensitive      boolean NOT NULL DEFAULT false,
        secret_ref        text,
        content_hash      bytea NOT NULL,
        change_seq        bigint NOT NULL DEFAULT 0,
        created_at        timestamptz NOT NULL DEFAULT now(),
        updated_at        timestamptz NOT NULL DEFAULT now(),
        deleted_at        timestamptz,
        expires_at        timestamptz,
        search_vector     tsvector GENERATED ALWAYS AS (
          setweight(to_tsvector('english', content), 'A') ||
          setweight(to_tsvector('english', expanded_keywords), 'B') ||
          setweight(to_tsvector('english', tags_to_text(tags)), 'C') ||
          setweight(to_tsvector('english', category), 'D')
        ) STORED
      );
      CREATE UNIQUE INDEX memories_owner_hash_live ON memories (owner_id, content_hash) WHERE deleted_at IS NULL;
      CREATE INDEX memories_owner_created_live ON memories (owner_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
      CREATE INDEX memories_owner_category_live ON memories (owner_id, category) WHERE deleted_at IS NULL;
      CREATE INDEX memories_owner_project_live ON memories (owner_id, project) WHERE deleted_at IS NULL;
      CREATE INDEX memories_tenant_team_live ON memories (tenant_id, created_at DESC) WHERE deleted_at IS NULL AND visibility = 'team';
      CREATE INDEX memories_owner_change_seq ON memories (owner_id, change_seq);
      CREATE INDEX memories_tags ON memories USING gin (tags);
      CREATE INDEX memories_search ON memories USING gin (search_vector);

      CREATE TABLE memory_index_state (
        memory_id     bigint PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
        tenant_id     uuid NOT NULL,
        owner_id      uuid NOT NULL,
        status        text NOT NULL CHECK (status IN ('pending', 'indexed', 'failed')),
        wanted_hash   bytea NOT NULL,
        indexed_hash  bytea,
        attempts      integer NOT NULL DEFAULT 0,
        times_indexed integer NOT NULL DEFAULT 0,
        last_error    text,
        indexed_at    timestamptz,
        updated_at    timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX memory_index_state_pending ON memory_index_state (tenant_id) WHERE status <> 'indexed';

      CREATE TABLE outbox (
        id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id     uuid NOT NULL,
        job_name      text NOT NULL,
        payload       jsonb NOT NULL,
        request_id    text,
        created_at    timestamptz NOT NULL DEFAULT now(),
        dispatched_at timestamptz,
        attempts      integer NOT NULL DEFAULT 0,
        last_error    text
      );
      CREATE INDEX outbox_undispatched ON outbox (id) WHERE dispatched_at IS NULL;

      CREATE TABLE audit_log (
        id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id   uuid NOT NULL,
        actor_id    uuid,
        key_id      uuid,
        action      text NOT NULL,
        target_type text NOT NULL,
        target_id   text,
        request_id  text,
        details     jsonb NOT NULL DEFAULT '{}',
        created_at  timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX audit_log_tenant_time ON audit_log (tenant_id, created_at DESC);

      CREATE TABLE idempotency_keys (
        tenant_id     uuid NOT NULL,
        user_id       uuid NOT NULL,
        key           text NOT NULL,
        request_hash  bytea NOT NULL,
        status_code   integer NOT NULL,
        response      jsonb NOT NULL,
        created_at    timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, key)
      );
    `);

    await this.enableRowLevelSecurity(q);
  }

  private async enableRowLevelSecurity(q: QueryRunner): Promise<void> {
    const tenantTables = [
      'tenants',
      'users',
      'api_keys',
      'memories',
      'memory_index_state',
      'outbox',
      'audit_log',
      'idempotency_keys',
    ];
    for (const table of tenantTables) {
      await q.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
      await q.query(`ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`);
      await q.query(`
        DO $$ BEGIN
          EXECUTE format('CREATE POLICY system_access ON ${table} FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
        END $$`);
    }

    await q.query(`
      CREATE POLICY tenant_read ON tenants FOR SELECT TO memory_app USING (id = app_tenant_id());

      CREATE POLICY tenant_rows ON users FOR ALL TO memory_app
        USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id());
      CREATE POLICY tenant_rows ON api_keys FOR ALL TO memory_app
        USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id());

      CREATE POLICY owner_or_team_read ON memories FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id() AND (owner_id = app_user_id() OR visibility = 'team'));
      CREATE POLICY owner_insert ON memories FOR INSERT TO memory_app
        WITH CHECK (tenant_id = app_tenant_id() AND owner_id = app_user_id());
      CREATE POLICY owner_update ON memories FOR UPDATE TO memory_app
        USING (tenant_id = app_tenant_id() AND owner_id = app_user_id())
        WITH CHECK (tenant_id = app_tenant_id() AND owner_id = app_user_id());
      CREATE POLICY owner_delete ON memories FOR DELETE TO memory_app
        USING (tenant_id = app_tenant_id() AND owner_id = app_user_id());

      CREATE POLICY owner_rows ON memory_index_state FOR ALL TO memory_app
        USING (tenant_id = app_tenant_id() AND owner_id = app_user_id())
        WITH CHECK (tenant_id = app_tenant_id() AND owner_id = app_user_id());
      CREATE POLICY owner_rows ON idempotency_keys FOR ALL TO memory_app
        USING (tenant_id = app_tenant_id() AND user_id = app_user_id())
        WITH CHECK (tenant_id = app_tenant_id() AND user_id = app_user_id());

      -- The app only appends to the outbox and the audit log; the relay reads as system.
      CREATE POLICY tenant_append ON outbox FOR INSERT TO memory_app WITH CHECK (tenant_id = app_tenant_id());
      CREATE POLICY tenant_append ON audit_log FOR INSERT TO memory_app WITH CHECK (tenant_id = app_tenant_id());
      CREATE POLICY tenant_read ON audit_log FOR SELECT TO memory_app USING (tenant_id = app_tenant_id());
    `);

    await q.query(`
      GRANT USAGE ON SCHEMA public TO memory_app;
      GRANT SELECT ON tenants TO memory_app;
      GRANT SELECT, INSERT, UPDATE, DELETE ON users, api_keys, memories, memory_index_state, idempotency_keys TO memory_app;
      GRANT INSERT ON outbox TO memory_app;
      GRANT SELECT, INSERT ON audit_log TO memory_app;
      GRANT EXECUTE ON FUNCTION app_tenant_id(), app_user_id(), app_is_system(), tags_to_text(text[]) TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE IF EXISTS idempotency_keys, audit_log, outbox, memory_index_state, memories, api_keys, users, tenants CASCADE;
      DROP FUNCTION IF EXISTS tags_to_text(text[]), app_is_system(), app_user_id(), app_tenant_id();
    `);
  }
}
