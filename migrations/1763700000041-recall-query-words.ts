import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The relevance floor's view of a query when the text leg runs in Postgres (while a tenant's
 * in-memory index loads, or when it does not fit): `recall_query_words(chunks)` answers each query
 * chunk's lexemes (`to_tsvector('english', …)` of it alone, as `recall_index_refresh` does) and
 * which of them some live memory the caller may read holds — the caller's read rule applied here,
 * as `recall_text_phase` applies it (under row-level security Postgres cannot use the GIN index for
 * `@@`). Only the caller's own readable memories decide, so the answer says nothing of memories
 * the caller cannot read. The in-memory index answers the same (`TenantTextIndex.present`).
 */
export class RecallQueryWords1763700000041 implements MigrationInterface {
  name = 'RecallQueryWords1763700000041';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION recall_query_words(p_chunks text[], OUT words json, OUT present text[])
        LANGUAGE plpgsql STABLE SECURITY DEFINER
        SET search_path = pg_catalog, public, pg_temp SET app.system = 'on'
        SET max_parallel_workers_per_gather = 0
      AS $$
      DECLARE
        v_tenant uuid := app_tenant_id();
        v_user uuid := app_user_id();
        v_admin boolean := coalesce(app_is_admin(), false);
      BEGIN
        SELECT coalesce(json_agg(tsvector_to_array(to_tsvector('english', w.chunk)) ORDER BY w.n), '[]')
          INTO words FROM unnest(p_chunks) WITH ORDINALITY w(chunk, n);
        present := '{}';
        IF v_tenant IS NULL OR v_user IS NULL THEN RETURN; END IF;
        SELECT coalesce(array_agg(l.lexeme ORDER BY l.lexeme), '{}') INTO present
          FROM (SELECT DISTINCT x AS lexeme
                  FROM unnest(p_chunks) c, unnest(tsvector_to_array(to_tsvector('english', c))) x) l
         WHERE EXISTS (
           SELECT 1 FROM memories m
            WHERE m.tenant_id = v_tenant AND m.search_vector @@ text_lexeme_query(ARRAY[l.lexeme])
              AND m.deleted_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now())
              AND (v_admin OR m.owner_id = v_user OR m.visibility = 'team'
                   OR EXISTS (SELECT 1 FROM memory_shares s WHERE s.memory_id = m.id AND s.shared_with = v_user)
                   OR EXISTS (SELECT 1 FROM tag_shares t
                               WHERE t.owner_id = m.owner_id AND t.shared_with = v_user AND t.tag = ANY (m.tags))));
      END
      $$;
      REVOKE ALL ON FUNCTION recall_query_words(text[]) FROM PUBLIC;
      GRANT EXECUTE ON FUNCTION recall_query_words(text[]) TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS recall_query_words(text[])`);
  }
}
