import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How much of a query each text hit holds, when the text leg runs in Postgres (while a tenant's
 * in-memory index loads, or when it does not fit): `recall_text_coverage(lexemes, ids)` answers, for
 * each of `ids` the caller may read, the IDF of the query's distinct lexemes its `search_vector`
 * holds over the IDF of all of them — tenant-wide statistics as `recall_text_search` scores with, a
 * lexeme no live memory holds counting as the rarest. Recall's fusion lowers the text leg's weight
 * when its best-covered hit holds little of the query (RECALL_TEXT_COVERAGE). The caller's read rule
 * is applied here, as `recall_text_phase` applies it, so an id the caller cannot read answers
 * nothing. The in-memory index answers the same (`TenantTextIndex.coverageOf`).
 */
export class RecallTextCoverage1763700000061 implements MigrationInterface {
  name = 'RecallTextCoverage1763700000061';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION recall_text_coverage(p_lexemes text[], p_ids bigint[])
        RETURNS TABLE (memory_id bigint, coverage double precision)
        LANGUAGE plpgsql STABLE SECURITY DEFINER
        SET search_path = pg_catalog, public, pg_temp SET app.system = 'on'
        SET max_parallel_workers_per_gather = 0
      AS $$
      #variable_conflict use_column
      DECLARE
        v_tenant uuid := app_tenant_id();
        v_user uuid := app_user_id();
        v_admin boolean := coalesce(app_is_admin(), false);
        v_docs bigint;
        v_terms text[];
        v_idf double precision[];
        v_total double precision;
      BEGIN
        IF v_tenant IS NULL OR v_user IS NULL OR p_lexemes IS NULL OR p_ids IS NULL
           OR cardinality(p_ids) = 0 THEN
          RETURN;
        END IF;
        SELECT t.documents INTO v_docs FROM text_corpus_totals(v_tenant) t;
        IF NOT (v_docs > 0) THEN RETURN; END IF;
        SELECT array_agg(d.lexeme),
               array_agg(ln(1 + (v_docs - d.documents + 0.5)::double precision / (d.documents + 0.5)))
          INTO v_terms, v_idf
          FROM text_term_documents(v_tenant, p_lexemes) d;
        SELECT sum(x) INTO v_total FROM unnest(v_idf) x;
        IF NOT (v_total > 0) THEN RETURN; END IF;
        RETURN QUERY
          SELECT m.id,
                 coalesce((SELECT sum(w.idf) FROM unnest(v_terms, v_idf) w(lexeme, idf)
                            WHERE w.lexeme = ANY (tsvector_to_array(m.search_vector))), 0) / v_total
            FROM memories m
           WHERE m.tenant_id = v_tenant AND m.id = ANY (p_ids)
             AND m.deleted_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now())
             AND (v_admin OR m.owner_id = v_user OR m.visibility = 'team'
                  OR EXISTS (SELECT 1 FROM memory_shares s WHERE s.memory_id = m.id AND s.shared_with = v_user)
                  OR EXISTS (SELECT 1 FROM tag_shares t
                              WHERE t.owner_id = m.owner_id AND t.shared_with = v_user AND t.tag = ANY (m.tags)));
      END
      $$;
      REVOKE ALL ON FUNCTION recall_text_coverage(text[], bigint[]) FROM PUBLIC;
      GRANT EXECUTE ON FUNCTION recall_text_coverage(text[], bigint[]) TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS recall_text_coverage(text[], bigint[])`);
  }
}
