import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SEARCH_SQL } from './1763700000017-bm25-text-search';

/**
 * `recall_text_search` (1763700000017) with `order` for the lexeme in its "rarest first" order:
 * the text between its CREATE and its grants, made CREATE OR REPLACE.
 */
function searchFunction(order: (column: string) => string): string {
  const start = SEARCH_SQL.indexOf('CREATE FUNCTION recall_text_search(');
  const end = SEARCH_SQL.indexOf('REVOKE ALL ON FUNCTION recall_text_search(');
  const body = SEARCH_SQL.slice(start, end).replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION');
  const ordered = body
    .replaceAll('ORDER BY d.documents, d.lexeme)', `ORDER BY d.documents, ${order('d.lexeme')})`)
    .replace('ORDER BY t.documents, t.lexeme LIMIT', `ORDER BY t.documents, ${order('t.lexeme')} LIMIT`);
  if (start < 0 || end < start || ordered.split('COLLATE "C"').length - 1 !== (order('x') === 'x' ? 0 : 4))
    throw new Error('recall_text_search: its term order was not found');
  return ordered;
}

/**
 * What lets a recall skip the statement before its rows (`TextLeg`): a process whose index of the
 * tenant was brought up to date a moment ago (RECALL_INDEX_FRESH_MS), with no write of that tenant
 * committed in the process since, and whose cache knows every word of the query, scores at once.
 *
 * - Equally rare query terms are ordered by byte (`COLLATE "C"`) in `recall_text_search` and in the
 *   new delta: the process orders the lexemes its cache gives by byte too, so index and Postgres
 *   break those ties alike in any database collation (on a C or C.UTF-8 database nothing changes).
 * - `recall_index_refresh(after, query, words, model, vector_after)`: `recall_index_delta`'s answer
 *   with the query's lexemes in that order; `words`, the lexemes of each of `p_words` (query chunks
 *   the process has not seen: `to_tsvector` of each alone), for the process's cache; and every
 *   direct share and tag rule of the tenant (`[memory, recipient]`, `[owner, tag, recipient]`)
 *   instead of the caller's, so one refresh serves every member's next recalls.
 *   `recall_index_delta` stays for processes of the previous release.
 */
export class RecallIndexRefresh1763700000040 implements MigrationInterface {
  name = 'RecallIndexRefresh1763700000040';

  async up(q: QueryRunner): Promise<void> {
    await q.query(searchFunction((column) => `${column} COLLATE "C"`));
    await q.query(`
      CREATE FUNCTION recall_index_refresh(p_after bigint, p_query text, p_words text[], p_model text,
        p_vector_after bigint,
        OUT horizon bigint, OUT lexemes text[], OUT words json, OUT changed json, OUT removed json,
        OUT shares json, OUT tag_rules json, OUT vectors json)
        LANGUAGE plpgsql STABLE SECURITY DEFINER
        SET search_path = pg_catalog, public SET app.system = 'on' SET plan_cache_mode = force_generic_plan
      AS $$
      DECLARE
        v_tenant uuid := app_tenant_id();
        -- A variable, not a constant: see 1763700000036.
        v_last bigint := 9223372036854775807;
      BEGIN
        horizon := sync_horizon();
        lexemes := ARRAY(SELECT x FROM unnest(tsvector_to_array(to_tsvector('english', p_query))) x
                          ORDER BY x COLLATE "C");
        SELECT coalesce(json_agg(tsvector_to_array(to_tsvector('english', w.chunk)) ORDER BY w.n), '[]')
          INTO words FROM unnest(p_words) WITH ORDINALITY w(chunk, n);
        SELECT coalesce(json_agg(recall_text_index_doc(m)), '[]') INTO changed
          FROM memories m WHERE m.tenant_id = v_tenant AND m.change_seq BETWEEN p_after AND v_last;
        SELECT coalesce(json_agg(json_build_array(r.memory_id, r.xid)), '[]') INTO removed FROM (
          SELECT a.memory_id, max(a.xid) AS xid FROM sync_audience_changes a
           WHERE a.tenant_id = v_tenant AND a.audience IN ('user', 'tenant', 'admins')
             AND a.xid BETWEEN p_after AND v_last
             AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = a.memory_id AND m.tenant_id = a.tenant_id)
           GROUP BY a.memory_id) r;
        SELECT coalesce(json_agg(json_build_array(s.memory_id, s.shared_with)), '[]') INTO shares
          FROM memory_shares s WHERE s.tenant_id = v_tenant;
        SELECT coalesce(json_agg(json_build_array(t.owner_id, t.tag, t.shared_with)), '[]') INTO tag_rules
          FROM tag_shares t WHERE t.tenant_id = v_tenant;
        vectors := '[]';
        IF p_model IS NOT NULL THEN
          SELECT coalesce(json_agg(json_build_array(e.memory_id, e.change_seq, e.embedding::text)), '[]') INTO vectors
            FROM memory_embeddings e
           WHERE e.tenant_id = v_tenant AND e.model_id = p_model
             AND e.change_seq BETWEEN p_vector_after AND v_last;
        END IF;
      END
      $$;
      REVOKE ALL ON FUNCTION recall_index_refresh(bigint, text, text[], text, bigint) FROM PUBLIC;
      GRANT EXECUTE ON FUNCTION recall_index_refresh(bigint, text, text[], text, bigint) TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS recall_index_refresh(bigint, text, text[], text, bigint)`);
    await q.query(searchFunction((column) => column));
  }
}
