import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The feed behind each API process's in-memory vector index (libs/recall, `TenantVectorIndex`),
 * beside the text index's (1763700000028 and 1763700000036).
 *
 * - `memory_embeddings.change_seq`: the position (writing transaction id, as `memories.change_seq`)
 *   of a vector's last write, set by a trigger on every insert and update. Rows written before this
 *   migration have none: a load reads every row, and only later writes are asked for by position.
 * - `recall_vector_index_page(model, after, limit)`: one page of the caller's tenant's vectors of a
 *   model, by memory id, soft-deleted memories included (the text index decides what is live, and
 *   a restored memory keeps its vector). A load takes `sync_horizon()` first, as the text load.
 * - `recall_index_delta(after, query, model, vector_after)`: `recall_text_index_delta`'s answer
 *   plus the model's vectors written at or after `vector_after` (none when `model` is null), in
 *   ONE statement, so a recall brings both indexes up to date in one round trip.
 *   `recall_text_index_delta` stays for processes of the previous release during a rolling update.
 *
 * Both are SECURITY DEFINER and answer for the transaction's own tenant only; vectors never leave
 * the process, which hands out ids that recall reads again under row-level security.
 */
export class RecallVectorIndexFeed1763700000038 implements MigrationInterface {
  name = 'RecallVectorIndexFeed1763700000038';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE memory_embeddings ADD COLUMN change_seq bigint;

      CREATE FUNCTION memory_embeddings_assign_change_seq() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.change_seq := pg_current_xact_id()::text::bigint;
        RETURN NEW;
      END $$;
      CREATE TRIGGER memory_embeddings_change_seq BEFORE INSERT OR UPDATE ON memory_embeddings
        FOR EACH ROW EXECUTE FUNCTION memory_embeddings_assign_change_seq();

      CREATE INDEX memory_embeddings_feed ON memory_embeddings (tenant_id, model_id, change_seq)
        WHERE change_seq IS NOT NULL;

      CREATE FUNCTION recall_vector_index_page(p_model text, p_after bigint, p_limit integer)
        RETURNS TABLE (memory_id bigint, seq bigint, embedding text)
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
        SELECT e.memory_id, coalesce(e.change_seq, 0), e.embedding::text FROM memory_embeddings e
         WHERE e.tenant_id = app_tenant_id() AND e.model_id = p_model AND e.memory_id > p_after
         ORDER BY e.memory_id LIMIT p_limit
      $$;

      CREATE FUNCTION recall_index_delta(p_after bigint, p_query text, p_model text, p_vector_after bigint,
        OUT horizon bigint, OUT lexemes text[], OUT changed json, OUT removed json,
        OUT shared bigint[], OUT tag_rules json, OUT vectors json)
        LANGUAGE plpgsql STABLE SECURITY DEFINER
        SET search_path = pg_catalog, public SET app.system = 'on' SET plan_cache_mode = force_generic_plan
      AS $$
      DECLARE
        v_tenant uuid := app_tenant_id();
        v_user uuid := app_user_id();
        -- A variable, not a constant: generic plans must see both ends of each range as unknown
        -- (1763700000036), or they take an open range to hold a third of the rows.
        v_last bigint := 9223372036854775807;
      BEGIN
        horizon := sync_horizon();
        lexemes := ARRAY(SELECT x FROM unnest(tsvector_to_array(to_tsvector('english', p_query))) x ORDER BY x);
        SELECT coalesce(json_agg(recall_text_index_doc(m)), '[]') INTO changed
          FROM memories m WHERE m.tenant_id = v_tenant AND m.change_seq BETWEEN p_after AND v_last;
        SELECT coalesce(json_agg(json_build_array(r.memory_id, r.xid)), '[]') INTO removed FROM (
          SELECT a.memory_id, max(a.xid) AS xid FROM sync_audience_changes a
           WHERE a.tenant_id = v_tenant AND a.audience IN ('user', 'tenant', 'admins')
             AND a.xid BETWEEN p_after AND v_last
             AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = a.memory_id AND m.tenant_id = a.tenant_id)
           GROUP BY a.memory_id) r;
        shared := ARRAY(SELECT s.memory_id FROM memory_shares s
                         WHERE s.shared_with = v_user AND s.tenant_id = v_tenant);
        SELECT coalesce(json_agg(json_build_array(t.owner_id, t.tag)), '[]') INTO tag_rules
          FROM tag_shares t WHERE t.shared_with = v_user AND t.tenant_id = v_tenant;
        vectors := '[]';
        IF p_model IS NOT NULL THEN
          SELECT coalesce(json_agg(json_build_array(e.memory_id, e.change_seq, e.embedding::text)), '[]') INTO vectors
            FROM memory_embeddings e
           WHERE e.tenant_id = v_tenant AND e.model_id = p_model
             AND e.change_seq BETWEEN p_vector_after AND v_last;
        END IF;
      END
      $$;

      REVOKE ALL ON FUNCTION recall_vector_index_page(text, bigint, integer),
        recall_index_delta(bigint, text, text, bigint), memory_embeddings_assign_change_seq() FROM PUBLIC;
      GRANT EXECUTE ON FUNCTION recall_vector_index_page(text, bigint, integer),
        recall_index_delta(bigint, text, text, bigint) TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP FUNCTION IF EXISTS recall_index_delta(bigint, text, text, bigint),
        recall_vector_index_page(text, bigint, integer);
      DROP TRIGGER IF EXISTS memory_embeddings_change_seq ON memory_embeddings;
      DROP FUNCTION IF EXISTS memory_embeddings_assign_change_seq();
      DROP INDEX IF EXISTS memory_embeddings_feed;
      ALTER TABLE memory_embeddings DROP COLUMN IF EXISTS change_seq;
    `);
  }
}
