import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `memory_link_closes_cycle(src, dst)`: would the link "src supersedes dst" close a cycle in the
 * tenant's supersedes graph (does dst already supersede src, directly or through others)?
 *
 * The walk covers every link of the caller's tenant, also those between memories the caller cannot
 * see, so the graph stays acyclic whoever links; it answers only a yes or no. It first takes a
 * transaction-scoped advisory lock per tenant: two concurrent links "A supersedes B" and "B
 * supersedes A" would otherwise both pass the check. SECURITY DEFINER with `app.system` set for its
 * duration only (as the sync triggers), `search_path` pinned.
 */
export class MemoryLinkRules1763700000010 implements MigrationInterface {
  name = 'MemoryLinkRules1763700000010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION memory_link_closes_cycle(p_src bigint, p_dst bigint) RETURNS boolean
        LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
      DECLARE
        v_tenant uuid := app_tenant_id();
      BEGIN
        IF v_tenant IS NULL THEN
          RAISE EXCEPTION 'memory_link_closes_cycle needs a tenant transaction';
        END IF;
        PERFORM pg_advisory_xact_lock(hashtextextended('memory_links.supersedes:' || v_tenant::text, 0));
        RETURN EXISTS (
          WITH RECURSIVE superseded(id) AS (
            SELECT p_dst
            UNION
            SELECT l.dst_id FROM memory_links l JOIN superseded s ON l.src_id = s.id
             WHERE l.link_type = 'supersedes' AND l.tenant_id = v_tenant)
          SELECT 1 FROM superseded WHERE id = p_src);
      END $$;
      REVOKE ALL ON FUNCTION memory_link_closes_cycle(bigint, bigint) FROM PUBLIC;
      GRANT EXECUTE ON FUNCTION memory_link_closes_cycle(bigint, bigint) TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS memory_link_closes_cycle(bigint, bigint)`);
  }
}
