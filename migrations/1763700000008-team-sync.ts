import type { MigrationInterface, QueryRunner } from 'typeorm';
import { PER_USER_SEQUENCE_SQL } from './1763700000004-sync';

/**
 * The sync feed follows what a user can SEE (own, team, shared directly or by tag; admins: the
 * tenant), not what they own, without a lock on the write path.
 *
 * Positions. A change's position is `(xid, memory id)`: the top-level id of the transaction that
 * made it (`pg_current_xact_id()`), then the memory. `memories.change_seq` holds the xid of the
 * row's last visible change, set by a plain BEFORE trigger: no shared row, no lock, so one user's
 * writers (or a whole tenant's) never queue behind each other. Numbers from one sequence cannot
 * work here: a transaction may take a number, another take a higher one and commit first, and a
 * reader that moved past the higher number would never see the lower one. Xids have the same
 * race, but Postgres tells a reader which of them are settled: every xid below the oldest one
 * still running when the reader's snapshot was taken (`pg_snapshot_xmin`) belongs to a transaction
 * that has finished, so its effects are in the snapshot (committed) or never will be (aborted), and
 * every change still to come has an xid at or above it. A reader returns only positions below that
 * horizon, in position order, so nothing can ever appear behind a cursor. `sync_horizon()` leaves
 * out transactions running in other databases of the server (they cannot write here). The price: a
 * transaction of this database that holds an xid holds the horizon back while it runs, so a long or
 * idle-in-transaction session delays every feed by its duration (latency, never a miss).
 * The per-user `sync_state` row lock this replaces made every write of a user wait for the
 * previous one to commit.
 *
 * Audience changes. A memory can enter or leave a user's view without its row changing (a share,
 * an unshare, a tag rule) or leave it when the row changes (made private, a tag removed, purged).
 * Triggers record those in `sync_audience_changes(xid, memory_id, audience, user_id)`: "at this
 * position, who may see memory M changed for this user" (`user`), for every user of the tenant
 * (`tenant`), or for admins (`admins`). A reader unions the visible rows changed after its cursor
 * with the audience changes addressed to it after the cursor and, per memory, sends the row if it
 * sees it now and a tombstone (id, time, position; never content) otherwise. Who gets a record:
 * - memory_shares INSERT / DELETE: the recipient (grant / revoke);
 * - tag_shares INSERT / DELETE: the recipient, once per private memory of the owner carrying the tag;
 * - a memory made private (team → private): the tenant;
 * - tags changed on a private memory: recipients of the owner's tag rules who no longer match;
 * - a purge (DELETE): the owner, and the tenant (team) or the admins and the tag-rule recipients
 *   (private); direct recipients get theirs from the cascade on memory_shares;
 * - an owner or tenant change (schema owner only): as a purge, for the old owner and tenant;
 * - a user deleted (raw SQL): as a purge of each of their memories, before the cascades run.
 * Tombstones therefore only name memories the recipient could see at some point. `owned` marks the
 * owner's own record: the owner-scoped `?since=` mode reads those. A page reads each memory as the
 * caller sees it NOW, so a record only has to exist at or after the change it announces.
 *
 * Tag rules against tagged writes. A rule's fan-out reads the owner's memories; a tagged write
 * (insert, retag, visibility change, purge) reads the owner's rules. Under READ COMMITTED each
 * could miss the other's uncommitted change, both commit, and nobody records the grant or revoke
 * (write skew). So rule changes take a per-owner advisory lock exclusive, such writes take it
 * shared (shared holders never wait for each other: one user's writes still never queue), and both
 * read after locking, in a fresh statement. Direct shares need no lock: a share names its memory
 * (the foreign key orders it against a purge) and every other change records unconditionally.
 *
 * Horizons. `sync_tenant_state(min_valid_seq, epoch)` per tenant: retention deletes old audience
 * records and old soft-deleted rows (without records) and raises `min_valid_seq` past what it
 * removed, so older cursors get 410; `epoch` changes only through `sync_reset_history()`.
 * `sync_state(min_valid_seq)` per user: erasing a user's data (`sync_forget_user`) removes the
 * records addressed to them and invalidates their cursors.
 *
 * `sync_reset_history()` (operators, after restoring a backup): xids are local to a cluster, so
 * after a restore (and above all a logical one, whose xids restart lower) positions stored in rows
 * no longer order against new ones. It bumps the epochs (cursors get 409), drops audience history
 * and sets every position to 0.
 *
 * Positions of rows written before this migration mean nothing in the new numbering: they become
 * 0 (already settled), and the cursor format changes, so clients re-seed once (409). Old tombstones
 * move to `sync_audience_changes` at position 0 for their owner, so `?since=` still reports them.
 */
export class TeamSync1763700000008 implements MigrationInterface {
  name = 'TeamSync1763700000008';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`SELECT set_config('app.system', 'on', true)`);
    await q.query(`
      DROP TRIGGER memories_change_seq ON memories;
      DROP TRIGGER memories_tombstone ON memories;
      DROP FUNCTION memories_assign_change_seq(), memories_record_tombstone(), sync_next_seq(uuid, uuid);

      UPDATE memories SET change_seq = 0 WHERE change_seq <> 0;
      CREATE INDEX memories_tenant_change ON memories (tenant_id, change_seq, id);

      CREATE TABLE sync_audience_changes (
        id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id   uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        memory_id   bigint NOT NULL,
        xid         bigint NOT NULL,
        audience    text NOT NULL CHECK (audience IN ('user', 'tenant', 'admins')),
        user_id     uuid REFERENCES users(id) ON DELETE CASCADE,
        owned       boolean NOT NULL DEFAULT false,
        changed_at  timestamptz NOT NULL DEFAULT now(),
        CHECK ((audience = 'user') = (user_id IS NOT NULL))
      );
      CREATE INDEX sync_audience_user ON sync_audience_changes (user_id, xid, memory_id);
      CREATE INDEX sync_audience_tenant ON sync_audience_changes (tenant_id, audience, xid, memory_id);
      CREATE INDEX sync_audience_changed_at ON sync_audience_changes (changed_at);

      INSERT INTO sync_audience_changes (tenant_id, memory_id, xid, audience, user_id, owned, changed_at)
        SELECT t.tenant_id, t.memory_id, 0, 'user', t.owner_id, true, t.deleted_at
          FROM memory_tombstones t JOIN users u ON u.id = t.owner_id AND u.tenant_id = t.tenant_id;
      DROP TABLE memory_tombstones;

      CREATE TABLE sync_tenant_state (
        tenant_id      uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
        min_valid_seq  bigint NOT NULL DEFAULT 0,
        epoch          integer NOT NULL DEFAULT 1
      );
      INSERT INTO sync_tenant_state (tenant_id, epoch)
        SELECT tenant_id, max(epoch) FROM sync_state GROUP BY tenant_id;
      ALTER TABLE sync_state DROP COLUMN last_seq, DROP COLUMN epoch;
      UPDATE sync_state SET min_valid_seq = 0;
    `);

    await q.query(`
      CREATE FUNCTION sync_position() RETURNS bigint LANGUAGE sql VOLATILE
        AS $$ SELECT pg_current_xact_id()::text::bigint $$;

      -- The feed's horizon in the CALLING statement's snapshot (a STABLE function runs in it): the
      -- lowest xid still running when the snapshot was taken that may have written to this
      -- database, or the next xid. Xids of transactions still running in another database are left
      -- out (they cannot write here), so another database's long transaction does not hold this
      -- feed back; one that finished meanwhile, or a prepared transaction, still counts, which can
      -- only make the horizon lower, never wrong.
      CREATE FUNCTION sync_horizon() RETURNS bigint LANGUAGE sql STABLE AS $$
        SELECT coalesce(
                 (SELECT min(x::text::bigint) FROM pg_snapshot_xip(s) x
                   WHERE NOT EXISTS (
                     SELECT 1 FROM pg_stat_get_activity(NULL) a
                      WHERE a.datid <> (SELECT oid FROM pg_database WHERE datname = current_database())
                        AND a.backend_xid::text = (x::text::bigint % 4294967296)::text)),
                 pg_snapshot_xmax(s)::text::bigint)
          FROM pg_current_snapshot() s
      $$;

      -- Every write runs this: no table access, no lock. Index bookkeeping keeps the old position.
      CREATE FUNCTION memories_assign_change_seq() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE'
           AND (NEW.content, NEW.category, NEW.tags, NEW.expanded_keywords, NEW.importance, NEW.project,
                NEW.visibility, NEW.is_sensitive, NEW.deleted_at, NEW.secret_ref, NEW.tenant_id, NEW.owner_id)
               IS NOT DISTINCT FROM
               (OLD.content, OLD.category, OLD.tags, OLD.expanded_keywords, OLD.importance, OLD.project,
                OLD.visibility, OLD.is_sensitive, OLD.deleted_at, OLD.secret_ref, OLD.tenant_id, OLD.owner_id) THEN
          -- Nothing a reader sees changed; the position is not the writer's to set either
          -- (sync_reset_history rewrites it on purpose).
          IF coalesce(current_setting('app.sync_rewrite', true), '') <> 'on' THEN
            NEW.change_seq := OLD.change_seq;
          END IF;
          RETURN NEW;
        END IF;
        NEW.change_seq := pg_current_xact_id()::text::bigint;
        RETURN NEW;
      END $$;
      CREATE TRIGGER memories_change_seq BEFORE INSERT OR UPDATE ON memories
        FOR EACH ROW EXECUTE FUNCTION memories_assign_change_seq();

      -- False while the recipient (null: the whole audience) or the tenant is being deleted: a
      -- cascade, nobody is left to tell. Called by the definer functions below (app.system on).
      CREATE FUNCTION sync_recipient_exists(p_tenant uuid, p_user uuid) RETURNS boolean
        LANGUAGE sql STABLE AS $$
        SELECT EXISTS (SELECT 1 FROM tenants WHERE id = p_tenant)
           AND (p_user IS NULL OR EXISTS (SELECT 1 FROM users WHERE id = p_user AND tenant_id = p_tenant))
      $$;

      -- One audience record for one memory.
      CREATE FUNCTION sync_record_audience(p_tenant uuid, p_memory bigint, p_audience text, p_user uuid,
                                           p_owned boolean DEFAULT false) RETURNS void
        LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
        INSERT INTO sync_audience_changes (tenant_id, memory_id, xid, audience, user_id, owned)
          SELECT p_tenant, p_memory, sync_position(), p_audience, p_user, p_owned
           WHERE sync_recipient_exists(p_tenant, p_user)
      $$;
      REVOKE ALL ON FUNCTION sync_record_audience(uuid, bigint, text, uuid, boolean) FROM PUBLIC;

      -- Tag rules against tagged writes of the same owner. A rule's fan-out reads the owner's
      -- memories and a tagged write (insert, retag, visibility change, purge) reads the owner's
      -- rules: under READ COMMITTED each could miss the other's uncommitted change and both commit
      -- without the record the feed needs. Rule changes take this lock exclusive, such writes take
      -- it shared (shared holders never wait for each other), and each reads after locking, in a
      -- statement of its own, so it sees whatever the other committed.
      CREATE FUNCTION sync_lock_tag_rules(p_owner uuid, p_exclusive boolean) RETURNS void
        LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        IF p_exclusive THEN
          PERFORM pg_advisory_xact_lock(1937338979, hashtext(p_owner::text));
        ELSE
          PERFORM pg_advisory_xact_lock_shared(1937338979, hashtext(p_owner::text));
        END IF;
      END $$;

      -- Everyone who could see a memory in this state may have lost it (a purge, a move).
      CREATE FUNCTION sync_record_loss(p_tenant uuid, p_memory bigint, p_owner uuid, p_tags text[],
                                       p_visibility text) RETURNS void
        LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
      BEGIN
        PERFORM sync_record_audience(p_tenant, p_memory, 'user', p_owner, true);
        IF p_visibility = 'team' THEN
          PERFORM sync_record_audience(p_tenant, p_memory, 'tenant', NULL);
          RETURN;
        END IF;
        PERFORM sync_record_audience(p_tenant, p_memory, 'admins', NULL);
        PERFORM sync_record_audience(p_tenant, p_memory, 'user', r.shared_with)
           FROM (SELECT DISTINCT t.shared_with FROM tag_shares t
                  WHERE t.owner_id = p_owner AND t.tag = ANY (p_tags)) r;
      END $$;
      REVOKE ALL ON FUNCTION sync_record_loss(uuid, bigint, uuid, text[], text) FROM PUBLIC;

      -- Only updates that can change who sees a row get here (see the trigger's WHEN).
      CREATE FUNCTION memories_record_audience_change() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
      BEGIN
        IF cardinality(OLD.tags) + cardinality(NEW.tags) > 0 THEN
          PERFORM sync_lock_tag_rules(OLD.owner_id, false);
        END IF;
        IF (NEW.owner_id, NEW.tenant_id) IS DISTINCT FROM (OLD.owner_id, OLD.tenant_id) THEN
          PERFORM sync_record_loss(OLD.tenant_id, OLD.id, OLD.owner_id, OLD.tags, OLD.visibility);
        ELSIF OLD.visibility = 'team' AND NEW.visibility <> 'team' THEN
          PERFORM sync_record_audience(NEW.tenant_id, NEW.id, 'tenant', NULL);
        ELSIF NEW.visibility <> 'team' THEN
          -- Tags changed: recipients of a rule on an old tag and of none on a new one.
          PERFORM sync_record_audience(NEW.tenant_id, NEW.id, 'user', r.shared_with)
             FROM (SELECT DISTINCT t.shared_with FROM tag_shares t
                    WHERE t.owner_id = NEW.owner_id AND t.tag = ANY (OLD.tags)
                      AND NOT EXISTS (SELECT 1 FROM tag_shares n
                                       WHERE n.owner_id = NEW.owner_id AND n.shared_with = t.shared_with
                                         AND n.tag = ANY (NEW.tags))) r;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER memories_audience_change AFTER UPDATE ON memories
        FOR EACH ROW
        WHEN (OLD.visibility IS DISTINCT FROM NEW.visibility OR OLD.tags IS DISTINCT FROM NEW.tags
              OR OLD.owner_id IS DISTINCT FROM NEW.owner_id OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id)
        EXECUTE FUNCTION memories_record_audience_change();

      -- A new private tagged memory records nothing (its row reaches whoever sees it), but must not
      -- slip past a rule removal in flight.
      CREATE FUNCTION memories_lock_tag_rules() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM sync_lock_tag_rules(NEW.owner_id, false);
        RETURN NULL;
      END $$;
      CREATE TRIGGER memories_tag_rules_lock AFTER INSERT ON memories
        FOR EACH ROW WHEN (cardinality(NEW.tags) > 0 AND NEW.visibility <> 'team')
        EXECUTE FUNCTION memories_lock_tag_rules();

      -- The retention job (a system transaction) sets app.sync_retention: it removes history on
      -- purpose and raises the tenant's horizon instead. The app role may set the same setting, so
      -- it counts only outside that role: a member cannot hide a purge from teammates.
      CREATE FUNCTION sync_retention_running() RETURNS boolean LANGUAGE sql STABLE AS $$
        SELECT coalesce(current_setting('app.sync_retention', true), '') = 'on'
           AND coalesce(current_setting('role', true), '') <> 'memory_app'
      $$;

      CREATE FUNCTION memories_record_removal() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
      BEGIN
        IF sync_retention_running() THEN RETURN NULL; END IF;
        IF cardinality(OLD.tags) > 0 AND OLD.visibility <> 'team' THEN
          PERFORM sync_lock_tag_rules(OLD.owner_id, false);
        END IF;
        PERFORM sync_record_loss(OLD.tenant_id, OLD.id, OLD.owner_id, OLD.tags, OLD.visibility);
        RETURN NULL;
      END $$;
      CREATE TRIGGER memories_tombstone AFTER DELETE ON memories
        FOR EACH ROW EXECUTE FUNCTION memories_record_removal();

      -- Deleting a user cascades to their memories and tag rules before any AFTER trigger runs,
      -- so by then neither side can see the other: record the losses first.
      CREATE FUNCTION users_record_removal() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
      BEGIN
        IF NOT sync_recipient_exists(OLD.tenant_id, NULL) THEN RETURN OLD; END IF; -- the tenant goes too
        PERFORM sync_lock_tag_rules(OLD.id, false);
        PERFORM sync_record_loss(m.tenant_id, m.id, m.owner_id, m.tags, m.visibility)
           FROM memories m WHERE m.owner_id = OLD.id;
        RETURN OLD;
      END $$;
      CREATE TRIGGER users_sync_removal BEFORE DELETE ON users
        FOR EACH ROW EXECUTE FUNCTION users_record_removal();

      CREATE FUNCTION memory_shares_record_audience() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
      BEGIN
        IF sync_retention_running() THEN RETURN NULL; END IF;
        IF TG_OP <> 'INSERT' THEN
          PERFORM sync_record_audience(OLD.tenant_id, OLD.memory_id, 'user', OLD.shared_with);
        END IF;
        IF TG_OP <> 'DELETE' THEN
          PERFORM sync_record_audience(NEW.tenant_id, NEW.memory_id, 'user', NEW.shared_with);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER memory_shares_audience AFTER INSERT OR DELETE OR UPDATE OF memory_id, shared_with
        ON memory_shares FOR EACH ROW EXECUTE FUNCTION memory_shares_record_audience();

      -- A rule covers the owner's private memories carrying the tag, present and future; a future
      -- one reaches the recipient through its own row change. Team memories they see anyway.
      CREATE FUNCTION tag_shares_record_audience() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
      BEGIN
        PERFORM sync_lock_tag_rules(CASE WHEN TG_OP = 'DELETE' THEN OLD.owner_id ELSE NEW.owner_id END, true);
        IF TG_OP = 'UPDATE' AND OLD.owner_id <> NEW.owner_id THEN
          PERFORM sync_lock_tag_rules(OLD.owner_id, true);
        END IF;
        IF TG_OP <> 'INSERT' AND sync_recipient_exists(OLD.tenant_id, OLD.shared_with) THEN
          INSERT INTO sync_audience_changes (tenant_id, memory_id, xid, audience, user_id)
            SELECT OLD.tenant_id, m.id, sync_position(), 'user', OLD.shared_with FROM memories m
             WHERE m.owner_id = OLD.owner_id AND m.tenant_id = OLD.tenant_id
               AND m.tags @> ARRAY[OLD.tag] AND m.visibility <> 'team';
        END IF;
        IF TG_OP <> 'DELETE' AND sync_recipient_exists(NEW.tenant_id, NEW.shared_with) THEN
          INSERT INTO sync_audience_changes (tenant_id, memory_id, xid, audience, user_id)
            SELECT NEW.tenant_id, m.id, sync_position(), 'user', NEW.shared_with FROM memories m
             WHERE m.owner_id = NEW.owner_id AND m.tenant_id = NEW.tenant_id
               AND m.tags @> ARRAY[NEW.tag] AND m.visibility <> 'team';
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER tag_shares_audience AFTER INSERT OR DELETE OR UPDATE OF owner_id, tag, shared_with
        ON tag_shares FOR EACH ROW EXECUTE FUNCTION tag_shares_record_audience();

      -- Erasure (system): the user's own history goes, and so do cursors that relied on it.
      CREATE FUNCTION sync_forget_user(p_tenant uuid, p_user uuid) RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE removed integer;
      BEGIN
        DELETE FROM sync_audience_changes WHERE user_id = p_user AND tenant_id = p_tenant;
        GET DIAGNOSTICS removed = ROW_COUNT;
        -- Past this transaction: a cursor at its position has not seen the records it removed.
        INSERT INTO sync_state AS s (user_id, tenant_id, min_valid_seq) VALUES (p_user, p_tenant, sync_position() + 1)
          ON CONFLICT (user_id) DO UPDATE SET min_valid_seq = greatest(s.min_valid_seq, EXCLUDED.min_valid_seq);
        RETURN removed;
      END $$;
      REVOKE ALL ON FUNCTION sync_forget_user(uuid, uuid) FROM PUBLIC;

      -- After restoring a backup (null: every tenant). Run as the schema owner with app.system on.
      CREATE FUNCTION sync_reset_history(p_tenant uuid DEFAULT NULL) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO sync_tenant_state AS s (tenant_id, epoch)
          SELECT id, 2 FROM tenants WHERE p_tenant IS NULL OR id = p_tenant
          ON CONFLICT (tenant_id) DO UPDATE SET epoch = s.epoch + 1, min_valid_seq = 0;
        UPDATE sync_state SET min_valid_seq = 0 WHERE p_tenant IS NULL OR tenant_id = p_tenant;
        DELETE FROM sync_audience_changes WHERE p_tenant IS NULL OR tenant_id = p_tenant;
        PERFORM set_config('app.sync_rewrite', 'on', true);
        UPDATE memories SET change_seq = 0 WHERE (p_tenant IS NULL OR tenant_id = p_tenant) AND change_seq <> 0;
        PERFORM set_config('app.sync_rewrite', 'off', true);
      END $$;
      REVOKE ALL ON FUNCTION sync_reset_history(uuid) FROM PUBLIC;
    `);

    for (const table of ['sync_audience_changes', 'sync_tenant_state']) {
      await q.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
      await q.query(`ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`);
      await q.query(`
        DO $$ BEGIN
          EXECUTE format('CREATE POLICY system_access ON ${table} FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
        END $$`);
    }
    // memory_app reads the records addressed to it and its tenant's horizon; only triggers write.
    await q.query(`
      CREATE POLICY recipient_read ON sync_audience_changes FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id() AND (
          audience = 'tenant' OR (audience = 'user' AND user_id = app_user_id())
          OR (audience = 'admins' AND app_is_admin())));
      CREATE POLICY tenant_read ON sync_tenant_state FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id());
      GRANT SELECT ON sync_audience_changes, sync_tenant_state TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`SELECT set_config('app.system', 'on', true)`);
    await q.query(`
      DROP TRIGGER IF EXISTS tag_shares_audience ON tag_shares;
      DROP TRIGGER IF EXISTS memory_shares_audience ON memory_shares;
      DROP TRIGGER IF EXISTS memories_tombstone ON memories;
      DROP TRIGGER IF EXISTS memories_audience_change ON memories;
      DROP TRIGGER IF EXISTS memories_change_seq ON memories;
      DROP TRIGGER IF EXISTS memories_tag_rules_lock ON memories;
      DROP TRIGGER IF EXISTS users_sync_removal ON users;
      DROP FUNCTION IF EXISTS sync_reset_history(uuid), sync_forget_user(uuid, uuid),
        tag_shares_record_audience(), memory_shares_record_audience(), memories_record_removal(), sync_retention_running(),
        sync_horizon(), memories_lock_tag_rules(), sync_lock_tag_rules(uuid, boolean), sync_recipient_exists(uuid, uuid),
        users_record_removal(),
        memories_record_audience_change(), sync_record_loss(uuid, bigint, uuid, text[], text),
        sync_record_audience(uuid, bigint, text, uuid, boolean), memories_assign_change_seq(), sync_position();
      DROP INDEX IF EXISTS memories_tenant_change;

      CREATE TABLE memory_tombstones (
        memory_id   bigint PRIMARY KEY,
        tenant_id   uuid NOT NULL,
        owner_id    uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        change_seq  bigint NOT NULL,
        deleted_at  timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX memory_tombstones_owner_seq ON memory_tombstones (owner_id, change_seq);
      CREATE INDEX memory_tombstones_deleted_at ON memory_tombstones (deleted_at);
      INSERT INTO memory_tombstones (memory_id, tenant_id, owner_id, change_seq, deleted_at)
        SELECT DISTINCT ON (memory_id) memory_id, tenant_id, user_id, 0, changed_at FROM sync_audience_changes
         WHERE owned ORDER BY memory_id, changed_at DESC;
      DROP TABLE sync_audience_changes;

      ALTER TABLE sync_state ADD COLUMN last_seq bigint NOT NULL DEFAULT 0, ADD COLUMN epoch integer NOT NULL DEFAULT 1;
      UPDATE sync_state s SET epoch = t.epoch + 1 FROM sync_tenant_state t WHERE t.tenant_id = s.tenant_id;
      DROP TABLE sync_tenant_state;

      -- Per-owner history in update order again, as migration 1763700000004 set it up.
      UPDATE memories m SET change_seq = r.seq
        FROM (SELECT id, row_number() OVER (PARTITION BY owner_id ORDER BY updated_at, id) AS seq FROM memories) r
       WHERE m.id = r.id;
      INSERT INTO sync_state AS s (user_id, tenant_id, last_seq)
        SELECT owner_id, min(tenant_id::text)::uuid, max(change_seq) FROM memories GROUP BY owner_id
        ON CONFLICT (user_id) DO UPDATE SET last_seq = EXCLUDED.last_seq, min_valid_seq = 0;
      UPDATE memory_tombstones t SET change_seq = coalesce(s.last_seq, 0) + 1
        FROM sync_state s WHERE s.user_id = t.owner_id;
      UPDATE sync_state s SET last_seq = last_seq + 1
       WHERE EXISTS (SELECT 1 FROM memory_tombstones t WHERE t.owner_id = s.user_id);
    `);
    await q.query(PER_USER_SEQUENCE_SQL);
    await q.query(`ALTER TABLE memory_tombstones ENABLE ROW LEVEL SECURITY`);
    await q.query(`ALTER TABLE memory_tombstones FORCE ROW LEVEL SECURITY`);
    await q.query(`
      DO $$ BEGIN
        EXECUTE format('CREATE POLICY system_access ON memory_tombstones FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
      END $$`);
    await q.query(`
      CREATE POLICY own_read ON memory_tombstones FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id() AND owner_id = app_user_id());
      GRANT SELECT ON memory_tombstones TO memory_app;
    `);
  }
}
