import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `recall_text_search`: the full-text leg of recall, able to use the `memories_search` GIN index.
 *
 * Under row-level security Postgres evaluates the policy before any condition whose function is
 * not leakproof, and `@@` is not: as `memory_app`, `search_vector @@ q` is only checked row by row
 * after the policy, so a recall over a team's 200k memories read all of them. This function runs
 * as the schema owner (SECURITY DEFINER, `app.system` on for its duration only, `search_path`
 * pinned with pg_temp last) and states the read rule itself, from the caller's own settings
 * (`app_tenant_id()`, `app_user_id()`, `app_is_admin()`), exactly as the memories policy says it:
 * own rows, team-visible rows, rows shared directly or by one of the owner's tag rules, and every
 * row of the tenant for admins; live rows only. Without a tenant or user setting it returns
 * nothing. It returns ids and scores only; recall then loads the rows as `memory_app`, under RLS.
 *
 * The visible set is gathered in disjoint branches, each with its own index (the owner's rows,
 * the team's through the partial team index or the GIN match, shares through their recipient
 * indexes), and planned with the actual values on every call (`plan_cache_mode`), so a small user
 * matching a common term reads their own rows, and a large team reads the GIN matches.
 */
export class RecallTextIndex1763700000009 implements MigrationInterface {
  name = 'RecallTextIndex1763700000009';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION recall_text_search(
        p_query tsquery, p_limit integer, p_category text, p_tags text[], p_project text,
        p_since timestamptz, p_before timestamptz)
      RETURNS TABLE (memory_id bigint, score real)
      LANGUAGE plpgsql STABLE SECURITY DEFINER
      SET search_path = pg_catalog, public, pg_temp
      SET app.system = 'on'
      SET plan_cache_mode = force_custom_plan
      -- Recall is many short queries; starting parallel workers costs more than it saves here.
      SET max_parallel_workers_per_gather = 0
      AS $$
      DECLARE
        v_tenant uuid := app_tenant_id();
        v_user uuid := app_user_id();
      BEGIN
        IF v_tenant IS NULL OR v_user IS NULL OR p_query IS NULL OR numnode(p_query) = 0 OR NOT (p_limit > 0) THEN
          RETURN;
        END IF;
        IF app_is_admin() THEN
          RETURN QUERY
            SELECT m.id, ts_rank_cd(m.search_vector, p_query, 1)
              FROM memories m
             WHERE m.tenant_id = v_tenant AND m.search_vector @@ p_query
               AND m.deleted_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now())
               AND (p_category IS NULL OR m.category = p_category) AND (p_tags IS NULL OR m.tags && p_tags)
               AND (p_project IS NULL OR m.project = p_project)
               AND (p_since IS NULL OR m.created_at >= p_since) AND (p_before IS NULL OR m.created_at < p_before)
             ORDER BY 2 DESC, 1 DESC
             LIMIT p_limit;
          RETURN;
        END IF;
        RETURN QUERY
          WITH visible AS (
            SELECT m.* FROM memories m
             WHERE m.owner_id = v_user AND m.tenant_id = v_tenant AND m.search_vector @@ p_query
            UNION ALL
            SELECT m.* FROM memories m
             WHERE m.tenant_id = v_tenant AND m.visibility = 'team' AND m.owner_id <> v_user
               AND m.search_vector @@ p_query
            UNION ALL
            -- Shares never name the owner as recipient, so these rows are nobody's own.
            SELECT m.* FROM memory_shares s JOIN memories m ON m.id = s.memory_id
             WHERE s.shared_with = v_user AND m.tenant_id = v_tenant AND m.visibility <> 'team'
               AND m.search_vector @@ p_query
            UNION ALL
            -- One row per memory: the rule with its smallest matching tag, none if shared directly.
            SELECT m.* FROM tag_shares t JOIN memories m ON m.owner_id = t.owner_id AND m.tags @> ARRAY[t.tag]
             WHERE t.shared_with = v_user AND m.tenant_id = v_tenant AND m.visibility <> 'team'
               AND m.search_vector @@ p_query
               AND NOT EXISTS (SELECT 1 FROM tag_shares o
                                WHERE o.owner_id = t.owner_id AND o.shared_with = v_user
                                  AND o.tag < t.tag AND o.tag = ANY (m.tags))
               AND NOT EXISTS (SELECT 1 FROM memory_shares s WHERE s.memory_id = m.id AND s.shared_with = v_user)
          )
          SELECT m.id, ts_rank_cd(m.search_vector, p_query, 1)
            FROM visible m
           WHERE m.deleted_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now())
             AND (p_category IS NULL OR m.category = p_category) AND (p_tags IS NULL OR m.tags && p_tags)
             AND (p_project IS NULL OR m.project = p_project)
             AND (p_since IS NULL OR m.created_at >= p_since) AND (p_before IS NULL OR m.created_at < p_before)
           ORDER BY 2 DESC, 1 DESC
           LIMIT p_limit;
      END $$;
      REVOKE ALL ON FUNCTION recall_text_search(tsquery, integer, text, text[], text, timestamptz, timestamptz) FROM PUBLIC;
      GRANT EXECUTE ON FUNCTION recall_text_search(tsquery, integer, text, text[], text, timestamptz, timestamptz) TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `DROP FUNCTION IF EXISTS recall_text_search(tsquery, integer, text, text[], text, timestamptz, timestamptz)`,
    );
  }
}
