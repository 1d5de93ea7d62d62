import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RECALL_TEXT_INDEX_DELTA_PLPGSQL } from './1763700000029-recall-delta-plpgsql';

/**
 * `recall_text_index_delta` ran its statements with generic plans: recall's transaction asks for
 * them (`plan_cache_mode = force_generic_plan`), and a PL/pgSQL function keeps its plans. A generic
 * plan does not know the position, and Postgres takes an open range on it (`change_seq >= $1`) to
 * hold a third of the rows, so for a tenant of 1,000,000 memories the plan of "rows changed since
 * the index's position" became a sequential scan of the table: 320 ms per recall, to find the
 * handful of rows (usually none) written since the last one.
 *
 * A range with both ends unknown is taken to hold 0.5% of the rows, so the same statements written
 * as `BETWEEN p_after AND v_last` (v_last: the largest position) read the (tenant, position)
 * indexes at every size, and the function now sets `plan_cache_mode` itself: its plans are made
 * once per connection whatever the caller asked for. Same signature, answers and rights.
 */
export class RecallDeltaRanges1763700000036 implements MigrationInterface {
  name = 'RecallDeltaRanges1763700000036';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION recall_text_index_delta(p_after bigint, p_query text,
        OUT horizon bigint, OUT lexemes text[], OUT changed json, OUT removed json,
        OUT shared bigint[], OUT tag_rules json)
        LANGUAGE plpgsql STABLE SECURITY DEFINER
        SET search_path = pg_catalog, public SET app.system = 'on' SET plan_cache_mode = force_generic_plan
      AS $$
      DECLARE
        v_tenant uuid := app_tenant_id();
        v_user uuid := app_user_id();
        -- A variable, not a constant in the text: the generic plan must see the range's upper end
        -- as unknown too, or it estimates the open range again.
        v_last bigint := 9223372036854775807;
      BEGIN
        horizon := sync_horizon();
        -- In the database's collation: ties between equally rare terms break the same way.
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
      END
      $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    // CREATE OR REPLACE keeps the grants; the function's own settings are replaced with it.
    await q.query(RECALL_TEXT_INDEX_DELTA_PLPGSQL);
  }
}
