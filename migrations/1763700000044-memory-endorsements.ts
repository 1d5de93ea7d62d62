import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who else stored what a team memory already says. A teammate's store of the same fact (same
 * text, or the same meaning) answers the existing team memory instead of writing a second row, and
 * records the teammate here: one row per memory and user, `last_at` the latest such store.
 *
 * Rows follow their memory: readable by whoever reads it (memories' policy decides), written only by
 * the user they name; erasing the user or purging the memory removes them.
 */
export class MemoryEndorsements1763700000044 implements MigrationInterface {
  name = 'MemoryEndorsements1763700000044';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE memory_endorsements (
        memory_id   bigint NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        tenant_id   uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        first_at    timestamptz NOT NULL DEFAULT now(),
        last_at     timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (memory_id, user_id)
      );
      CREATE INDEX memory_endorsements_user ON memory_endorsements (user_id);
      ALTER TABLE memory_endorsements ENABLE ROW LEVEL SECURITY;
      ALTER TABLE memory_endorsements FORCE ROW LEVEL SECURITY;
    `);
    await q.query(`
      DO $$ BEGIN
        EXECUTE format('CREATE POLICY system_access ON memory_endorsements FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
      END $$`);
    await q.query(`
      CREATE POLICY visible_read ON memory_endorsements FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id() AND EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id));
      CREATE POLICY own_write ON memory_endorsements FOR ALL TO memory_app
        USING (tenant_id = app_tenant_id() AND user_id = app_user_id())
        WITH CHECK (tenant_id = app_tenant_id() AND user_id = app_user_id()
                    AND EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id));
      GRANT SELECT, INSERT, UPDATE, DELETE ON memory_endorsements TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE memory_endorsements`);
  }
}
