import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pins: what a session's startup context always lists first.
 *
 * - A personal pin (`scope 'user'`, `user_id` the user): any user pins a memory they can see, for
 *   their own startup context; nobody else reads it.
 * - A team pin (`scope 'team'`, no user): an admin key (`app_is_tenant_admin()`) pins a team-visible
 *   memory for everyone's startup context. One per memory.
 *
 * Pinning never changes the memory row (an admin without access to private memories may not write
 * other people's memories). A pin is read only together with its memory, so it shows while the
 * memory is visible to the reader: the policies ask `memories`' own policies (the EXISTS runs
 * under the reader's row-level security). Erasing a user removes their pins (the erasure deletes
 * them; deleting the user cascades); purging a memory removes its pins (cascade).
 */
export class MemoryPins1763700000047 implements MigrationInterface {
  name = 'MemoryPins1763700000047';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE memory_pins (
        id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id   uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        memory_id   bigint NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        scope       text NOT NULL CHECK (scope IN ('user', 'team')),
        user_id     uuid REFERENCES users(id) ON DELETE CASCADE,
        created_at  timestamptz NOT NULL DEFAULT now(),
        CHECK ((scope = 'user') = (user_id IS NOT NULL))
      );
      CREATE UNIQUE INDEX memory_pins_team ON memory_pins (memory_id) WHERE scope = 'team';
      CREATE UNIQUE INDEX memory_pins_user ON memory_pins (memory_id, user_id) WHERE scope = 'user';
      CREATE INDEX memory_pins_memory ON memory_pins (memory_id, scope);
      CREATE INDEX memory_pins_reader ON memory_pins (tenant_id, scope, user_id);
      ALTER TABLE memory_pins ENABLE ROW LEVEL SECURITY;
      ALTER TABLE memory_pins FORCE ROW LEVEL SECURITY;
    `);
    await q.query(`
      DO $$ BEGIN
        EXECUTE format('CREATE POLICY system_access ON memory_pins FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
      END $$`);
    await q.query(`
      CREATE POLICY reader_read ON memory_pins FOR SELECT TO memory_app
        USING (tenant_id = (SELECT app_tenant_id())
               AND (scope = 'team' OR user_id = (SELECT app_user_id()))
               AND EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_pins.memory_id));
      CREATE POLICY own_insert ON memory_pins FOR INSERT TO memory_app
        WITH CHECK (tenant_id = (SELECT app_tenant_id()) AND scope = 'user' AND user_id = (SELECT app_user_id())
                    AND EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_pins.memory_id));
      CREATE POLICY own_delete ON memory_pins FOR DELETE TO memory_app
        USING (tenant_id = (SELECT app_tenant_id()) AND scope = 'user' AND user_id = (SELECT app_user_id()));
      CREATE POLICY team_insert ON memory_pins FOR INSERT TO memory_app
        WITH CHECK (tenant_id = (SELECT app_tenant_id()) AND scope = 'team' AND (SELECT app_is_tenant_admin())
                    AND EXISTS (SELECT 1 FROM memories m
                                 WHERE m.id = memory_pins.memory_id AND m.visibility = 'team'));
      CREATE POLICY team_delete ON memory_pins FOR DELETE TO memory_app
        USING (tenant_id = (SELECT app_tenant_id()) AND scope = 'team' AND (SELECT app_is_tenant_admin()));
      GRANT SELECT, INSERT, DELETE ON memory_pins TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE memory_pins`);
  }
}
