import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What Postgres did again on every store, beside the row.
 *
 * A new live memory's bookkeeping in one trigger call instead of two. The quota counters
 * (`memories_usage_insert`, migration 1763700000025) and the BM25 statistics
 * (`memories_text_stats_insert`, migrations 1763700000017 and 053) each ran a SECURITY DEFINER
 * function per inserted row, and each call switched `search_path` and `app.system` in and out. The
 * statistics' document length went through `text_document_length`, an SQL function that Postgres
 * parses and plans again in every transaction (its plan is kept only for one statement); here the
 * same sum is a statement of the trigger itself, whose plan the session keeps. A perf profile of
 * the store put the two triggers at 22% of the Postgres backend's CPU, of which parsing and
 * planning `text_document_length` was half.
 *
 * Same rows as before: one `memory_usage_deltas` row, one `text_stats_deltas` row and the
 * `memory_text_lengths` row. Updates, deletes and truncation keep their own triggers.
 *
 * `memory_initial_review` (migration 1763700000048), which the store's INSERT calls for the review
 * state a new row starts in, was an SQL function Postgres cannot inline (it reads `tenants`), so it
 * too was parsed and planned in every store's transaction (8% of the backend's CPU per store). As
 * PL/pgSQL its plan is kept; same answer, same rights (it runs as the caller, under row-level security).
 */
export class InsertBookkeepingTrigger1763700000060 implements MigrationInterface {
  name = 'InsertBookkeepingTrigger1763700000060';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION memories_record_insert() RETURNS trigger
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on' AS $$
      DECLARE
        v_length integer;
      BEGIN
        INSERT INTO memory_usage_deltas (tenant_id, memories, bytes)
          VALUES (NEW.tenant_id, 1, octet_length(NEW.content));
        -- text_document_length's sum, planned once per session.
        SELECT coalesce(sum(text_weighted_tf(u.weights)), 0)::integer INTO v_length
          FROM unnest(NEW.search_vector) u;
        INSERT INTO text_stats_deltas (tenant_id, lexemes, length, sign)
          VALUES (NEW.tenant_id, tsvector_to_array(NEW.search_vector), v_length, 1);
        INSERT INTO memory_text_lengths (tenant_id, memory_id, length)
          VALUES (NEW.tenant_id, NEW.id, v_length)
          ON CONFLICT (memory_id, tenant_id) DO UPDATE SET length = EXCLUDED.length;
        RETURN NULL;
      END $$;
      REVOKE ALL ON FUNCTION memories_record_insert() FROM PUBLIC;
      DROP TRIGGER memories_usage_insert ON memories;
      DROP TRIGGER memories_text_stats_insert ON memories;
      CREATE TRIGGER memories_live_insert AFTER INSERT ON memories
        FOR EACH ROW WHEN (NEW.deleted_at IS NULL) EXECUTE FUNCTION memories_record_insert();`);
    await q.query(`
      CREATE OR REPLACE FUNCTION memory_initial_review(p_tenant uuid, p_visibility text) RETURNS text
      LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
      BEGIN
        IF p_visibility IS DISTINCT FROM 'team' OR app_is_tenant_admin() THEN
          RETURN 'accepted';
        END IF;
        RETURN CASE WHEN coalesce((SELECT t.review_team_memories FROM tenants t WHERE t.id = p_tenant), false)
                    THEN 'proposed' ELSE 'accepted' END;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION memory_initial_review(p_tenant uuid, p_visibility text) RETURNS text
      LANGUAGE sql STABLE PARALLEL SAFE AS $$ SELECT CASE WHEN p_visibility = 'team' AND NOT app_is_tenant_admin()
                               AND coalesce((SELECT t.review_team_memories FROM tenants t WHERE t.id = p_tenant), false)
                          THEN 'proposed' ELSE 'accepted' END $$`);
    await q.query(`
      DROP TRIGGER memories_live_insert ON memories;
      CREATE TRIGGER memories_usage_insert AFTER INSERT ON memories
        FOR EACH ROW WHEN (NEW.deleted_at IS NULL) EXECUTE FUNCTION memories_record_usage();
      CREATE TRIGGER memories_text_stats_insert AFTER INSERT ON memories
        FOR EACH ROW WHEN (NEW.deleted_at IS NULL) EXECUTE FUNCTION memories_record_text_stats();
      DROP FUNCTION memories_record_insert();`);
  }
}
