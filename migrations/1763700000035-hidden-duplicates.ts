import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An edit whose text equals one of the owner's memories that its writer cannot see.
 *
 * Uniqueness of live content is per owner (`memories_owner_hash_live`), but a memory shared for
 * writing is edited by users who see only some of its owner's memories. Refusing such an edit (or
 * failing on the index) would tell the editor that the owner holds that text. So the row is written
 * and marked `duplicates_hidden`, which keeps it out of the uniqueness rule, and nothing in the
 * answer differs from an edit with a unique text.
 *
 * Why a flag, and not a per-memory hash as sensitive rows get: the row keeps the hash of its text,
 * so a later duplicate check by the same editor still finds it. With a per-memory hash the editor
 * could store the text in one shared memory, then in another, and learn from whether the second
 * edit is refused (409 naming the first) whether the owner had the text all along.
 *
 * - `memory_content_taken(owner, hash, memory)`: does the owner hold another live memory with this
 *   hash that counts for the uniqueness rule? Called inside the UPDATE itself (no extra round
 *   trip), after the use case answered 409 for every duplicate the caller can see; so a row it
 *   finds is one the caller cannot see (or one committed since, which is marked the same way).
 *   SECURITY DEFINER with `app.system` for its duration only and `search_path` pinned, as the
 *   link-cycle check (migration 1763700000010); it answers only about the caller's own tenant.
 * - `memories_owner_hash_hidden`: the few marked rows by owner and hash, for that duplicate check.
 */
export class HiddenDuplicates1763700000035 implements MigrationInterface {
  name = 'HiddenDuplicates1763700000035';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE memories ADD COLUMN duplicates_hidden boolean NOT NULL DEFAULT false;
      GRANT UPDATE (duplicates_hidden) ON memories TO memory_app;

      CREATE UNIQUE INDEX memories_owner_hash_live_next ON memories (owner_id, content_hash)
        WHERE deleted_at IS NULL AND NOT duplicates_hidden;
      DROP INDEX memories_owner_hash_live;
      ALTER INDEX memories_owner_hash_live_next RENAME TO memories_owner_hash_live;
      CREATE INDEX memories_owner_hash_hidden ON memories (owner_id, content_hash)
        WHERE deleted_at IS NULL AND duplicates_hidden;

      CREATE FUNCTION memory_content_taken(p_owner uuid, p_hash bytea, p_memory bigint) RETURNS boolean
        LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
      DECLARE
        v_tenant uuid := app_tenant_id();
      BEGIN
        IF v_tenant IS NULL THEN
          RAISE EXCEPTION 'memory_content_taken needs a tenant transaction';
        END IF;
        RETURN EXISTS (
          SELECT 1 FROM memories
           WHERE owner_id = p_owner AND content_hash = p_hash AND deleted_at IS NULL
             AND NOT duplicates_hidden AND id <> p_memory AND tenant_id = v_tenant);
      END $$;
      REVOKE ALL ON FUNCTION memory_content_taken(uuid, bytea, bigint) FROM PUBLIC;
      GRANT EXECUTE ON FUNCTION memory_content_taken(uuid, bytea, bigint) TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    // Marked rows would break the old index: their text is made unique per memory first, as a
    // sensitive row's is (they take no part in duplicate detection from then on).
    await q.query(`SELECT set_config('app.system', 'on', true)`);
    await q.query(`
      DROP FUNCTION IF EXISTS memory_content_taken(uuid, bytea, bigint);
      UPDATE memories SET content_hash = sha256(convert_to('sensitive-memory:' || id, 'UTF8'))
       WHERE duplicates_hidden;
      DROP INDEX IF EXISTS memories_owner_hash_hidden;
      DROP INDEX IF EXISTS memories_owner_hash_live;
      CREATE UNIQUE INDEX memories_owner_hash_live ON memories (owner_id, content_hash) WHERE deleted_at IS NULL;
      ALTER TABLE memories DROP COLUMN IF EXISTS duplicates_hidden;
    `);
  }
}
