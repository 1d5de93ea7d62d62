import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether a teammate shares team memories, asked by `team_duplicate_after_lock` on every team store,
 * read the tenant's whole live team set when nobody but the caller had written one (a team of one,
 * or a team's first writer): `owner_id <> caller` found no row, so the scan ran to the end, a cost
 * that grew with the caller's own team memories (0.7 ms at 650, tens of ms at 100,000). With this
 * index it is two probes: the first team writer ordered before the caller, and the first after.
 *
 * The function also looked up the near candidates when there were none: its kept plan walked the
 * tenant's team set for `id = ANY('{}')`. The candidates' branch now runs only when there are some.
 */
export class TeamWritersIndex1763700000059 implements MigrationInterface {
  name = 'TeamWritersIndex1763700000059';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX memories_team_owner_live ON memories (tenant_id, owner_id)
        WHERE deleted_at IS NULL AND visibility = 'team'`);
    await q.query(teamDuplicateFunction(TEAMMATES_BY_PROBES, `AND cardinality(p_near) > 0`));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(teamDuplicateFunction(TEAMMATES_BY_SCAN, ''));
    await q.query(`DROP INDEX IF EXISTS memories_team_owner_live`);
  }
}

/** Migration 058's question: any live team memory of another owner (a scan when there is none). */
const TEAMMATES_BY_SCAN = `EXISTS (SELECT 1 FROM memories m
                                  WHERE m.tenant_id = p_tenant AND m.visibility = 'team'
                                    AND m.owner_id <> p_user AND m.deleted_at IS NULL)`;

/** The same as two probes of `memories_team_owner_live`: an owner ordered before the caller, or after. */
const TEAMMATES_BY_PROBES = `(EXISTS (SELECT 1 FROM memories m
                                  WHERE m.tenant_id = p_tenant AND m.visibility = 'team'
                                    AND m.owner_id < p_user AND m.deleted_at IS NULL)
                              OR EXISTS (SELECT 1 FROM memories m
                                  WHERE m.tenant_id = p_tenant AND m.visibility = 'team'
                                    AND m.owner_id > p_user AND m.deleted_at IS NULL))`;

/** `team_duplicate_after_lock` of migration 058 with `teammates` and a gate on the candidates' branch. */
const teamDuplicateFunction = (teammates: string, nearGate: string) => `
      CREATE OR REPLACE FUNCTION team_duplicate_after_lock(p_tenant uuid, p_user uuid, p_hash bytea, p_near bigint[])
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
            FROM (SELECT ${teammates} AS teammates) t
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
                    AND NOT m.is_sensitive ${nearGate})) c
               WHERE NOT EXISTS (SELECT 1 FROM memories o
                                  WHERE o.tenant_id = p_tenant AND o.owner_id = p_user
                                    AND o.content_hash = p_hash AND o.deleted_at IS NULL
                                    AND NOT o.duplicates_hidden)
               ORDER BY c.exact DESC, array_position(p_near, c.id), c.id
               LIMIT 1) d ON true;
      END
      $$;`;
