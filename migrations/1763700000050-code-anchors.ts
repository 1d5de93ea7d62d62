import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Memories that know the code.
 *
 * - `memory_anchors`: a memory's links to code, each `{repo, path, symbol?, lines?, commit?,
 *   hash?}`. `repo` is a project identity (`host/owner/repo`), `hash` the git blob id of the file
 *   when it was anchored (the service never sees file contents). `state` says whether the code still
 *   reads as it did: `current`, `stale` (the file changed: `changed_*` say by which code event, when,
 *   to which blob and commit) or `orphaned` (the file was deleted). A rename moves the anchor's path.
 *   Anchors follow their memory: readable exactly when the memory is (the policy asks `memories`,
 *   whose own policy decides), written by the write path in the memory's own transaction by whoever
 *   may change the memory (`app_memory_writable`: the memories' write rule), gone with it (ON DELETE
 *   CASCADE on purge and erasure). The worker's staleness job changes them as the
 *   system, in event order: an event older than an anchor's `checked_at` (written or verified
 *   since) does not change it.
 * - `code_events`: what changed in a repository, as a client's hook or a CI bot reported it (paths
 *   and blob ids, renames and deletions; never contents). Written with an outbox row in one
 *   transaction; the worker applies it to the tenant's anchors (`applied_at`, `anchors_changed`).
 *   Readable by the tenant's users (the paths are the team's repository's).
 * - `sessions.git_commit`: the commit a session started at (captured memories are anchored to it).
 * - Keys that may write sessions may report their working tree's changes: they get
 *   `code-events:write` (the hooks send changed paths with the session).
 */
export class CodeAnchors1763700000050 implements MigrationInterface {
  name = 'CodeAnchors1763700000050';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE code_events (
        id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id       uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        repo            text NOT NULL,
        branch          text,
        before_commit   text,
        after_commit    text,
        merged          boolean NOT NULL DEFAULT false,
        changes         jsonb NOT NULL,
        reported_by     uuid REFERENCES users(id) ON DELETE SET NULL,
        -- The reporting key was an admin's: a deleted branch then takes the team's memories of it too.
        reported_by_admin boolean NOT NULL DEFAULT false,
        created_at      timestamptz NOT NULL DEFAULT now(),
        applied_at      timestamptz,
        anchors_changed integer
      );
      CREATE INDEX code_events_tenant ON code_events (tenant_id, id DESC);

      CREATE TABLE memory_anchors (
        id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id       uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        memory_id       bigint NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        ordinal         smallint NOT NULL,
        repo            text NOT NULL,
        path            text NOT NULL,
        symbol          text,
        line_start      integer CHECK (line_start > 0),
        line_end        integer CHECK (line_end >= line_start),
        commit          text,
        hash            text,
        state           text NOT NULL DEFAULT 'current' CHECK (state IN ('current', 'stale', 'orphaned')),
        changed_event   bigint REFERENCES code_events(id) ON DELETE SET NULL,
        changed_at      timestamptz,
        changed_hash    text,
        changed_commit  text,
        -- The newest code event applied to it, whatever it changed: events applied out of order
        -- (a retried job) never undo a newer one.
        seen_event      bigint,
        created_at      timestamptz NOT NULL DEFAULT now(),
        -- Since when its hash is known to hold (written, or verified): older code events pass it by.
        checked_at      timestamptz NOT NULL DEFAULT now(),
        UNIQUE (memory_id, ordinal)
      );
      -- The staleness job finds a tenant's anchors on the changed paths of one repository.
      CREATE INDEX memory_anchors_path ON memory_anchors (tenant_id, repo, path);
      -- Deleting old events sets their anchors' changed_event to null: found by this index, not a scan.
      CREATE INDEX memory_anchors_changed_event ON memory_anchors (changed_event) WHERE changed_event IS NOT NULL;

      ALTER TABLE memory_anchors ENABLE ROW LEVEL SECURITY;
      ALTER TABLE memory_anchors FORCE ROW LEVEL SECURITY;
      ALTER TABLE code_events ENABLE ROW LEVEL SECURITY;
      ALTER TABLE code_events FORCE ROW LEVEL SECURITY;
      DO $$ BEGIN
        EXECUTE format('CREATE POLICY system_access ON memory_anchors FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
        EXECUTE format('CREATE POLICY system_access ON code_events FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
      END $$;

      -- Anchors are visible when their memory is, and changed by whoever may change the memory (the
      -- memories' own write rule: owner, admin, a write share directly or by tag), in its transaction.
      CREATE FUNCTION app_memory_writable(p_memory bigint) RETURNS boolean
        LANGUAGE sql STABLE PARALLEL SAFE
        AS $f$ SELECT EXISTS (
          SELECT 1 FROM memories m
           WHERE m.id = p_memory AND m.tenant_id = app_tenant_id()
             AND (m.owner_id = app_user_id() OR app_is_admin()
                  OR EXISTS (SELECT 1 FROM memory_shares s
                              WHERE s.memory_id = m.id AND s.shared_with = app_user_id() AND s.permission = 'write')
                  OR EXISTS (SELECT 1 FROM tag_shares t
                              WHERE t.owner_id = m.owner_id AND t.shared_with = app_user_id()
                                AND t.permission = 'write' AND t.tag = ANY (m.tags)))) $f$;
      GRANT EXECUTE ON FUNCTION app_memory_writable(bigint) TO memory_app;
      CREATE POLICY visible_read ON memory_anchors FOR SELECT TO memory_app
        USING (tenant_id = (SELECT app_tenant_id())
               AND EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_anchors.memory_id));
      CREATE POLICY writer_insert ON memory_anchors FOR INSERT TO memory_app
        WITH CHECK (tenant_id = (SELECT app_tenant_id()) AND app_memory_writable(memory_id));
      CREATE POLICY writer_update ON memory_anchors FOR UPDATE TO memory_app
        USING (tenant_id = (SELECT app_tenant_id()) AND app_memory_writable(memory_id))
        WITH CHECK (tenant_id = (SELECT app_tenant_id()) AND app_memory_writable(memory_id));
      CREATE POLICY writer_delete ON memory_anchors FOR DELETE TO memory_app
        USING (tenant_id = (SELECT app_tenant_id()) AND app_memory_writable(memory_id));
      GRANT SELECT, INSERT, UPDATE, DELETE ON memory_anchors TO memory_app;

      CREATE POLICY tenant_read ON code_events FOR SELECT TO memory_app
        USING (tenant_id = (SELECT app_tenant_id()));
      CREATE POLICY reporter_insert ON code_events FOR INSERT TO memory_app
        WITH CHECK (tenant_id = (SELECT app_tenant_id()) AND reported_by = (SELECT app_user_id()));
      GRANT SELECT, INSERT ON code_events TO memory_app;

      ALTER TABLE sessions ADD COLUMN git_commit text;

      UPDATE api_keys SET scopes = array_append(scopes, 'code-events:write')
       WHERE 'sessions:write' = ANY (scopes) AND NOT 'code-events:write' = ANY (scopes);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE api_keys SET scopes = array_remove(scopes, 'code-events:write');
      ALTER TABLE sessions DROP COLUMN git_commit;
      DROP TABLE memory_anchors;
      DROP FUNCTION app_memory_writable(bigint);
      DROP TABLE code_events;
    `);
  }
}
