import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The team-duplicate check of a new team memory in one statement: `team_duplicate_after_lock`
 * takes the transaction's lock on the tenant and content hash (so two teammates storing the same
 * text at once write one row), then looks for a teammate's live team memory with that text or among
 * the near candidates, and says whether any teammate shares team memories at all (a store that
 * skipped the meaning probe learns that it should not have). Each statement of a VOLATILE PL/pgSQL
 * function reads with a snapshot of its own, so the look after the lock sees every commit made
 * before the lock was granted, as the two statements the store sent before did.
 *
 * The look is two index probes (the team hash index of migration 054, and the candidates' ids) so
 * that the plan Postgres keeps for it stays a probe at any team size: the single statement it
 * replaces had `content_hash = $3 OR id = ANY($4)`, whose kept (generic) plan read the tenant's
 * whole live team set on every store. The function keeps that generic plan from its first call:
 * planning the statement under the memories policies costs more than running it, and a plan made
 * for each call's values looks cheaper to Postgres, so it would plan again on every store. Runs as
 * the caller: row-level security applies.
 */
export class TeamDuplicateCheck1763700000058 implements MigrationInterface {
  name = 'TeamDuplicateCheck1763700000058';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION team_duplicate_after_lock(p_tenant uuid, p_user uuid, p_hash bytea, p_near bigint[])
        RETURNS TABLE (id bigint, category text, importance double precision, content text,
                       exact boolean, teammates boolean)
        LANGUAGE plpgsql VOLATILE
        SET search_path = pg_catalog, public, pg_temp SET plan_cache_mode = force_generic_plan
      AS $$
      #variable_conflict use_column
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtextextended(p_tenant::text || encode(p_hash, 'hex'), 0));
        RETURN QUERY
          SELECT d.id, d.category, d.importance, d.content, d.exact, t.teammates
            FROM (SELECT EXISTS (SELECT 1 FROM memories m
                                  WHERE m.tenant_id = p_tenant AND m.visibility = 'team'
                                    AND m.owner_id <> p_user AND m.deleted_at IS NULL) AS teammates) t
            LEFT JOIN LATERAL (
              SELECT c.id, c.category, c.importance, c.content, c.exact FROM (
                (SELECT m.id, m.category, m.importance, m.content, true AS exact FROM memories m
                  WHERE m.tenant_id = p_tenant AND m.content_hash = p_hash AND m.visibility = 'team'
                    AND m.deleted_at IS NULL AND m.owner_id <> p_user AND m.review_state = 'accepted'
                    AND NOT m.is_sensitive
                  ORDER BY array_position(p_near, m.id), m.id LIMIT 1)
                UNION ALL
                (SELECT m.id, m.category, m.importance, m.content, m.content_hash = p_hash FROM memories m
                  WHERE m.id = ANY (p_near) AND m.tenant_id = p_tenant AND m.visibility = 'team'
                    AND m.deleted_at IS NULL AND m.owner_id <> p_user AND m.review_state = 'accepted'
                    AND NOT m.is_sensitive)) c
               WHERE NOT EXISTS (SELECT 1 FROM memories o
                                  WHERE o.tenant_id = p_tenant AND o.owner_id = p_user
                                    AND o.content_hash = p_hash AND o.deleted_at IS NULL
                                    AND NOT o.duplicates_hidden)
               ORDER BY c.exact DESC, array_position(p_near, c.id), c.id
               LIMIT 1) d ON true;
      END
      $$;
      REVOKE ALL ON FUNCTION team_duplicate_after_lock(uuid, uuid, bytea, bigint[]) FROM PUBLIC;
      GRANT EXECUTE ON FUNCTION team_duplicate_after_lock(uuid, uuid, bytea, bigint[]) TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS team_duplicate_after_lock(uuid, uuid, bytea, bigint[])`);
  }
}
