import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RECALL_TEXT_INDEX_DELTA_SQL } from './1763700000028-recall-text-index-feed';

/** This migration's body of `recall_text_index_delta` (1763700000036 goes back to it on down). */
export const RECALL_TEXT_INDEX_DELTA_PLPGSQL = `
      CREATE OR REPLACE FUNCTION recall_text_index_delta(p_after bigint, p_query text,
        OUT horizon bigint, OUT lexemes text[], OUT changed json, OUT removed json,
        OUT shared bigint[], OUT tag_rules json)
        LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
      DECLARE
        v_tenant uuid := app_tenant_id();
        v_user uuid := app_user_id();
      BEGIN
        horizon := sync_horizon();
        -- In the database's collation: ties between equally rare terms break the same way.
        lexemes := ARRAY(SELECT x FROM unnest(tsvector_to_array(to_tsvector('english', p_query))) x ORDER BY x);
        SELECT coalesce(json_agg(recall_text_index_doc(m)), '[]') INTO changed
          FROM memories m WHERE m.tenant_id = v_tenant AND m.change_seq >= p_after;
        SELECT coalesce(json_agg(json_build_array(r.memory_id, r.xid)), '[]') INTO removed FROM (
          SELECT a.memory_id, max(a.xid) AS xid FROM sync_audience_changes a
           WHERE a.tenant_id = v_tenant AND a.audience IN ('user', 'tenant', 'admins')
             AND a.xid >= p_after
             AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = a.memory_id AND m.tenant_id = a.tenant_id)
           GROUP BY a.memory_id) r;
        shared := ARRAY(SELECT s.memory_id FROM memory_shares s
                         WHERE s.shared_with = v_user AND s.tenant_id = v_tenant);
        SELECT coalesce(json_agg(json_build_array(t.owner_id, t.tag)), '[]') INTO tag_rules
          FROM tag_shares t WHERE t.shared_with = v_user AND t.tenant_id = v_tenant;
      END
      $$;
`;

/**
 * `recall_text_index_delta` runs at every recall. As a SQL function it was planned again at every
 * call (Postgres 15 keeps no plans of SQL functions between calls): its six sub-queries cost
 * 0.3–0.6 ms of planning for ~0.1 ms of work. The same body in PL/pgSQL keeps each statement's plan
 * for the session, so a pooled connection plans it once. Same signature, answers and rights.
 */
export class RecallDeltaPlpgsql1763700000029 implements MigrationInterface {
  name = 'RecallDeltaPlpgsql1763700000029';

  async up(q: QueryRunner): Promise<void> {
    await q.query(RECALL_TEXT_INDEX_DELTA_PLPGSQL);
  }

  async down(q: QueryRunner): Promise<void> {
    // Back to the SQL body of 1763700000028; replacing a function keeps its grants.
    await q.query(RECALL_TEXT_INDEX_DELTA_SQL);
  }
}
