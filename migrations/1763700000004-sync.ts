import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Incremental sync: a per-user change sequence that cannot skip a row.
 *
 * - `sync_state`: one row per user. Every visible change to one of the user's memories takes
 *   this row's lock (`INSERT … ON CONFLICT DO UPDATE`) and bumps `last_seq`; the lock is held to
 *   commit, so within a user commit order equals sequence order and a reader that has seen seq N
 *   committed has seen every seq below N too. `min_valid_seq` is raised when history is purged;
 *   `epoch` is bumped by an operator when history is rewritten (e.g. a backup restore).
 * - `memory_tombstones`: a hard `DELETE` (purge) leaves `(memory_id, change_seq, deleted_at)` so
 *   clients learn about it; the retention job removes old ones and raises `min_valid_seq`.
 * - `server_secrets`: install-wide secrets the app generates at first use (the cursor HMAC key
 *   when SYNC_CURSOR_SECRET is unset). System-only.
 *
 * The trigger functions are SECURITY DEFINER (owned by the schema owner) with `search_path` pinned
 * and `app.system` set for their duration only, so app-role, system and raw-SQL writes all go
 * through them while memory_app itself can only read its own sync rows.
 */
export class Sync1763700000004 implements MigrationInterface {
  name = 'Sync1763700000004';

  async up(q: QueryRunner): Promise<void> {
    // Owner policies key on app.system; the backfill below reads and writes every tenant.
    await q.query(`SELECT set_config('app.system', 'on', true)`);
    await q.query(`
      CREATE TABLE sync_state (
        user_id        uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        tenant_id      uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        last_seq       bigint NOT NULL DEFAULT 0,
        min_valid_seq  bigint NOT NULL DEFAULT 0,
        epoch          integer NOT NULL DEFAULT 1
      );

      CREATE TABLE memory_tombstones (
        memory_id   bigint PRIMARY KEY,
        tenant_id   uuid NOT NULL,
        owner_id    uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        change_seq  bigint NOT NULL,
        deleted_at  timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX memory_tombstones_owner_seq ON memory_tombstones (owner_id, change_seq);
      CREATE INDEX memory_tombstones_deleted_at ON memory_tombstones (deleted_at);
      -- The retention job looks for old soft-deleted rows across all users.
      CREATE INDEX memories_deleted_at ON memories (deleted_at) WHERE deleted_at IS NOT NULL;

      CREATE TABLE server_secrets (
        name        text PRIMARY KEY,
        value       bytea NOT NULL CHECK (octet_length(value) >= 32),
        created_at  timestamptz NOT NULL DEFAULT now()
      );
    `);

    // Existing rows get a per-owner history in update order, so old data is syncable at once.
    await q.query(`
      UPDATE memories m SET change_seq = r.seq
        FROM (SELECT id, row_number() OVER (PARTITION BY owner_id ORDER BY updated_at, id) AS seq FROM memories) r
       WHERE m.id = r.id;
      INSERT INTO sync_state (user_id, tenant_id, last_seq)
        SELECT owner_id, min(tenant_id::text)::uuid, max(change_seq) FROM memories GROUP BY owner_id;
    `);

    await q.query(PER_USER_SEQUENCE_SQL);

    for (const table of ['sync_state', 'memory_tombstones', 'server_secrets']) {
      await q.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
      await q.query(`ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`);
      await q.query(`
        DO $$ BEGIN
          EXECUTE format('CREATE POLICY system_access ON ${table} FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
        END $$`);
    }

    // memory_app reads its own sync rows; only the trigger functions (as owner) write them.
    await q.query(`
      CREATE POLICY own_read ON sync_state FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id() AND user_id = app_user_id());
      CREATE POLICY own_read ON memory_tombstones FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id() AND owner_id = app_user_id());
      GRANT SELECT ON sync_state, memory_tombstones TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER IF EXISTS memories_tombstone ON memories;
      DROP TRIGGER IF EXISTS memories_change_seq ON memories;
      DROP FUNCTION IF EXISTS memories_record_tombstone(), memories_assign_change_seq(), sync_next_seq(uuid, uuid);
      DROP INDEX IF EXISTS memories_deleted_at;
      DROP TABLE IF EXISTS server_secrets, memory_tombstones, sync_state;
    `);
  }
}

/**
 * The per-user sequence's functions and triggers (see below); migration 1763700000008 replaces them
 * and restores them from here when it is undone.
 */
export const PER_USER_SEQUENCE_SQL = `
      CREATE FUNCTION sync_next_seq(p_user uuid, p_tenant uuid) RETURNS bigint
        LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
        INSERT INTO sync_state AS s (user_id, tenant_id, last_seq) VALUES (p_user, p_tenant, 1)
        ON CONFLICT (user_id) DO UPDATE SET last_seq = s.last_seq + 1
        RETURNING s.last_seq
      $$;
      REVOKE ALL ON FUNCTION sync_next_seq(uuid, uuid) FROM PUBLIC;

      -- Only changes a client can see take a sequence number; index bookkeeping does not.
      CREATE FUNCTION memories_assign_change_seq() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          IF NEW.owner_id IS DISTINCT FROM OLD.owner_id THEN
            -- The old owner's clients must drop the row as if it had been purged.
            INSERT INTO memory_tombstones (memory_id, tenant_id, owner_id, change_seq)
              VALUES (OLD.id, OLD.tenant_id, OLD.owner_id, sync_next_seq(OLD.owner_id, OLD.tenant_id))
              ON CONFLICT (memory_id) DO UPDATE
                SET owner_id = EXCLUDED.owner_id, tenant_id = EXCLUDED.tenant_id,
                    change_seq = EXCLUDED.change_seq, deleted_at = now();
          ELSIF (NEW.content, NEW.category, NEW.tags, NEW.expanded_keywords, NEW.importance, NEW.project,
                 NEW.visibility, NEW.is_sensitive, NEW.deleted_at, NEW.secret_ref, NEW.tenant_id)
                IS NOT DISTINCT FROM
                (OLD.content, OLD.category, OLD.tags, OLD.expanded_keywords, OLD.importance, OLD.project,
                 OLD.visibility, OLD.is_sensitive, OLD.deleted_at, OLD.secret_ref, OLD.tenant_id) THEN
            -- Nothing visible changed; the sequence number is not the writer's to set either.
            NEW.change_seq := OLD.change_seq;
            RETURN NEW;
          END IF;
        END IF;
        NEW.change_seq := sync_next_seq(NEW.owner_id, NEW.tenant_id);
        RETURN NEW;
      END $$;

      -- A purge leaves a tombstone with a fresh sequence number. The retention job sets
      -- app.sync_retention: it removes history on purpose and raises min_valid_seq instead.
      CREATE FUNCTION memories_record_tombstone() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
      BEGIN
        IF coalesce(current_setting('app.sync_retention', true), '') = 'on' THEN RETURN OLD; END IF;
        -- Cascading from a deleted user or tenant: nobody is left to sync.
        IF NOT EXISTS (SELECT 1 FROM users WHERE id = OLD.owner_id) THEN RETURN OLD; END IF;
        INSERT INTO memory_tombstones (memory_id, tenant_id, owner_id, change_seq)
          VALUES (OLD.id, OLD.tenant_id, OLD.owner_id, sync_next_seq(OLD.owner_id, OLD.tenant_id))
          ON CONFLICT (memory_id) DO UPDATE
            SET change_seq = EXCLUDED.change_seq, deleted_at = now();
        RETURN OLD;
      END $$;

      CREATE TRIGGER memories_change_seq BEFORE INSERT OR UPDATE ON memories
        FOR EACH ROW EXECUTE FUNCTION memories_assign_change_seq();
      CREATE TRIGGER memories_tombstone AFTER DELETE ON memories
        FOR EACH ROW EXECUTE FUNCTION memories_record_tombstone();
`;
