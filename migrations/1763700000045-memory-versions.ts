import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Version history of memories.
 *
 * - `memory_versions`: one row per earlier state of a memory. A change of its content, tags,
 *   category, importance, project or visibility keeps the state it replaced as the next version
 *   (1, 2, …), written in the change's own transaction by the memories write path. A row holds the
 *   state (a sensitive memory's redacted text only: the secret itself is never in a version), who
 *   wrote that state (`author_id`) and since when (`valid_from`), and who replaced it, when, and
 *   which of its fields the change touched.
 * - Versions follow their memory: readable exactly when the memory is (the read policy asks
 *   `memories`, whose own policy decides), gone with it (ON DELETE CASCADE on purge and erasure).
 *   Rows are never changed: the application role may read and insert them only.
 */
export class MemoryVersions1763700000045 implements MigrationInterface {
  name = 'MemoryVersions1763700000045';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE memory_versions (
        memory_id       bigint NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        version         integer NOT NULL CHECK (version > 0),
        tenant_id       uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        content         text NOT NULL,
        category        text NOT NULL,
        tags            text[] NOT NULL,
        importance      double precision NOT NULL,
        project         text,
        visibility      text NOT NULL CHECK (visibility IN ('private', 'team')),
        is_sensitive    boolean NOT NULL,
        author_id       uuid REFERENCES users(id) ON DELETE SET NULL,
        valid_from      timestamptz NOT NULL,
        replaced_by     uuid REFERENCES users(id) ON DELETE SET NULL,
        replaced_at     timestamptz NOT NULL DEFAULT now(),
        changed_fields  text[] NOT NULL,
        PRIMARY KEY (memory_id, version)
      );
      -- An erasure finds the states a user wrote into teammates' memories.
      CREATE INDEX memory_versions_author ON memory_versions (tenant_id, author_id);

      ALTER TABLE memory_versions ENABLE ROW LEVEL SECURITY;
      ALTER TABLE memory_versions FORCE ROW LEVEL SECURITY;
      DO $$ BEGIN
        EXECUTE format('CREATE POLICY system_access ON memory_versions FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
      END $$;

      -- A version is visible when its memory is (memories' policy decides that). The write path
      -- inserts one in the transaction that updates the memory, which that policy checks again.
      CREATE POLICY visible_read ON memory_versions FOR SELECT TO memory_app
        USING (tenant_id = (SELECT app_tenant_id())
               AND EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id));
      CREATE POLICY visible_insert ON memory_versions FOR INSERT TO memory_app
        WITH CHECK (tenant_id = (SELECT app_tenant_id())
                    AND EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id AND m.tenant_id = memory_versions.tenant_id));

      GRANT SELECT, INSERT ON memory_versions TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS memory_versions`);
  }
}
