import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sharing inside a tenant, links between memories, and admin reach.
 *
 * - `memory_shares`: one memory shared with one user, `read` or `write`. `owner_id` is the memory's
 *   owner (a composite foreign key keeps it true), so owners see every share of their memories
 *   without a policy that reads `memories` (which would make the two policies recurse).
 * - `tag_shares`: a live rule, "every memory of mine tagged T, now and later, for user U".
 * - `memory_links`: typed edges (`supersedes`, `part-of`, `see-also`, `resolved-by`) between two
 *   memories of one tenant.
 * - `api_keys.default_visibility`: a key's own default for new memories (null: the configured one).
 * - `app.admin`: set per transaction for keys with the `admin` scope; admins read and change every
 *   memory of their tenant, never another tenant's.
 *
 * The memories policies say exactly who reads and who changes a row: its owner, everyone when it is
 * team-visible, users it is shared with (directly or by tag; `write` to change it), and admins.
 * Updates are granted column by column, so nobody but the schema owner can move a memory to another
 * owner or tenant, whatever a policy allows.
 */
export class TeamSharing1763700000007 implements MigrationInterface {
  name = 'TeamSharing1763700000007';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION app_is_admin() RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
        AS $$ SELECT coalesce(current_setting('app.admin', true), '') = 'on' $$;
      GRANT EXECUTE ON FUNCTION app_is_admin() TO memory_app;

      CREATE UNIQUE INDEX memories_id_owner ON memories (id, owner_id);

      CREATE TABLE memory_shares (
        memory_id    bigint NOT NULL,
        owner_id     uuid NOT NULL,
        shared_with  uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        tenant_id    uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        permission   text NOT NULL CHECK (permission IN ('read', 'write')),
        created_at   timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (memory_id, shared_with),
        FOREIGN KEY (memory_id, owner_id) REFERENCES memories (id, owner_id) ON DELETE CASCADE,
        CHECK (shared_with <> owner_id)
      );
      CREATE INDEX memory_shares_recipient ON memory_shares (shared_with, memory_id);
      CREATE INDEX memory_shares_owner ON memory_shares (owner_id, created_at DESC);

      CREATE TABLE tag_shares (
        owner_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        tag          text NOT NULL,
        shared_with  uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        tenant_id    uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        permission   text NOT NULL CHECK (permission IN ('read', 'write')),
        created_at   timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (owner_id, tag, shared_with),
        CHECK (shared_with <> owner_id)
      );
      CREATE INDEX tag_shares_recipient ON tag_shares (shared_with, owner_id);

      CREATE TABLE memory_links (
        id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id   uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        src_id      bigint NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        dst_id      bigint NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        link_type   text NOT NULL CHECK (link_type IN ('supersedes', 'part-of', 'see-also', 'resolved-by')),
        created_by  uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at  timestamptz NOT NULL DEFAULT now(),
        UNIQUE (src_id, dst_id, link_type),
        CHECK (src_id <> dst_id)
      );
      CREATE INDEX memory_links_dst ON memory_links (dst_id, link_type);

      ALTER TABLE api_keys ADD COLUMN default_visibility text CHECK (default_visibility IN ('private', 'team'));
    `);

    for (const table of ['memory_shares', 'tag_shares', 'memory_links']) {
      await q.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
      await q.query(`ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`);
      await q.query(`
        DO $$ BEGIN
          EXECUTE format('CREATE POLICY system_access ON ${table} FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
        END $$`);
    }

    await q.query(`
      -- Shares: the recipient and the owner read them; the owner (or an admin) makes and removes
      -- them, and only for a user of the same tenant (users' own policy hides every other).
      CREATE POLICY party_read ON memory_shares FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id() AND (shared_with = app_user_id() OR owner_id = app_user_id() OR app_is_admin()));
      CREATE POLICY owner_write ON memory_shares FOR ALL TO memory_app
        USING (tenant_id = app_tenant_id() AND (owner_id = app_user_id() OR app_is_admin()))
        WITH CHECK (tenant_id = app_tenant_id() AND (owner_id = app_user_id() OR app_is_admin())
                    AND EXISTS (SELECT 1 FROM users u WHERE u.id = shared_with));
      CREATE POLICY party_read ON tag_shares FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id() AND (shared_with = app_user_id() OR owner_id = app_user_id() OR app_is_admin()));
      CREATE POLICY owner_write ON tag_shares FOR ALL TO memory_app
        USING (tenant_id = app_tenant_id() AND (owner_id = app_user_id() OR app_is_admin()))
        WITH CHECK (tenant_id = app_tenant_id() AND (owner_id = app_user_id() OR app_is_admin())
                    AND EXISTS (SELECT 1 FROM users u WHERE u.id = shared_with));

      -- A link is visible when both of its memories are (memories' policy decides that).
      CREATE POLICY visible_read ON memory_links FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id()
               AND EXISTS (SELECT 1 FROM memories m WHERE m.id = src_id)
               AND EXISTS (SELECT 1 FROM memories m WHERE m.id = dst_id));
      CREATE POLICY visible_write ON memory_links FOR ALL TO memory_app
        USING (tenant_id = app_tenant_id() AND EXISTS (SELECT 1 FROM memories m WHERE m.id = src_id))
        WITH CHECK (tenant_id = app_tenant_id()
                    AND EXISTS (SELECT 1 FROM memories m WHERE m.id = src_id)
                    AND EXISTS (SELECT 1 FROM memories m WHERE m.id = dst_id));

      DROP POLICY owner_or_team_read ON memories;
      DROP POLICY owner_update ON memories;
      DROP POLICY owner_delete ON memories;

      CREATE POLICY visible_read ON memories FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id() AND (
          owner_id = app_user_id() OR visibility = 'team' OR app_is_admin()
          OR EXISTS (SELECT 1 FROM memory_shares s
                      WHERE s.memory_id = memories.id AND s.shared_with = app_user_id())
          OR EXISTS (SELECT 1 FROM tag_shares t
                      WHERE t.owner_id = memories.owner_id AND t.shared_with = app_user_id()
                        AND t.tag = ANY (memories.tags))));
      CREATE POLICY writer_update ON memories FOR UPDATE TO memory_app
        USING (tenant_id = app_tenant_id() AND (
          owner_id = app_user_id() OR app_is_admin()
          OR EXISTS (SELECT 1 FROM memory_shares s
                      WHERE s.memory_id = memories.id AND s.shared_with = app_user_id() AND s.permission = 'write')
          OR EXISTS (SELECT 1 FROM tag_shares t
                      WHERE t.owner_id = memories.owner_id AND t.shared_with = app_user_id()
                        AND t.permission = 'write' AND t.tag = ANY (memories.tags))))
        WITH CHECK (tenant_id = app_tenant_id());
      CREATE POLICY owner_delete ON memories FOR DELETE TO memory_app
        USING (tenant_id = app_tenant_id() AND (owner_id = app_user_id() OR app_is_admin()));

      -- Owner and tenant never change through the application role.
      REVOKE UPDATE ON memories FROM memory_app;
      GRANT UPDATE (content, content_hash, category, tags, expanded_keywords, importance, project, visibility,
                    is_sensitive, secret_ref, secret_version, updated_at, deleted_at, expires_at)
        ON memories TO memory_app;

      -- Index bookkeeping follows whoever may change the memory (an editor's write re-indexes it).
      DROP POLICY owner_rows ON memory_index_state;
      CREATE POLICY tenant_rows ON memory_index_state FOR ALL TO memory_app
        USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id());

      GRANT SELECT, INSERT, UPDATE, DELETE ON memory_shares, tag_shares TO memory_app;
      GRANT SELECT, INSERT, DELETE ON memory_links TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP POLICY IF EXISTS tenant_rows ON memory_index_state;
      CREATE POLICY owner_rows ON memory_index_state FOR ALL TO memory_app
        USING (tenant_id = app_tenant_id() AND owner_id = app_user_id())
        WITH CHECK (tenant_id = app_tenant_id() AND owner_id = app_user_id());
      GRANT UPDATE ON memories TO memory_app;
      DROP POLICY IF EXISTS visible_read ON memories;
      DROP POLICY IF EXISTS writer_update ON memories;
      DROP POLICY IF EXISTS owner_delete ON memories;
      CREATE POLICY owner_or_team_read ON memories FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id() AND (owner_id = app_user_id() OR visibility = 'team'));
      CREATE POLICY owner_update ON memories FOR UPDATE TO memory_app
        USING (tenant_id = app_tenant_id() AND owner_id = app_user_id())
        WITH CHECK (tenant_id = app_tenant_id() AND owner_id = app_user_id());
      CREATE POLICY owner_delete ON memories FOR DELETE TO memory_app
        USING (tenant_id = app_tenant_id() AND owner_id = app_user_id());
      ALTER TABLE api_keys DROP COLUMN IF EXISTS default_visibility;
      DROP TABLE IF EXISTS memory_links, tag_shares, memory_shares;
      DROP INDEX IF EXISTS memories_id_owner;
      DROP FUNCTION IF EXISTS app_is_admin();
    `);
  }
}
