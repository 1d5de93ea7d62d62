import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Link rules in the database.
 *
 * - The links write policy of 1763700000007 was `FOR ALL`, so it also granted SELECT on links whose
 *   source alone is visible (permissive policies add up): a link to a memory the reader cannot see
 *   showed through. It is split into INSERT (both ends visible) and DELETE (source visible; the
 *   read policy still hides a link with an invisible end from the DELETE's WHERE).
 * - `memory_link_closes_cycle(src, dst)`: would the link "src supersedes dst" close a cycle in the
 *   tenant's supersedes graph (does dst already supersede src, directly or through others)? The
 *   walk covers every link of the caller's tenant, also those between memories the caller cannot
 *   see, so the graph stays acyclic whoever links; it answers only yes or no. It first takes a
 *   transaction-scoped advisory lock per tenant: two concurrent links "A supersedes B" and "B
 *   supersedes A" would otherwise both pass the check. SECURITY DEFINER with `app.system` set for
 *   its duration only (as the sync triggers), `search_path` pinned.
 */
export class MemoryLinkRules1763700000010 implements MigrationInterface {
  name = 'MemoryLinkRules1763700000010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP POLICY visible_write ON memory_links;
      CREATE POLICY visible_insert ON memory_links FOR INSERT TO memory_app
        WITH CHECK (tenant_id = app_tenant_id()
                    AND EXISTS (SELECT 1 FROM memories m WHERE m.id = src_id)
                    AND EXISTS (SELECT 1 FROM memories m WHERE m.id = dst_id));
      CREATE POLICY visible_delete ON memory_links FOR DELETE TO memory_app
        USING (tenant_id = app_tenant_id() AND EXISTS (SELECT 1 FROM memories m WHERE m.id = src_id));
    `);
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
    await q.query(`
      DROP FUNCTION IF EXISTS memory_link_closes_cycle(bigint, bigint);
      DROP POLICY IF EXISTS visible_insert ON memory_links;
      DROP POLICY IF EXISTS visible_delete ON memory_links;
      CREATE POLICY visible_write ON memory_links FOR ALL TO memory_app
        USING (tenant_id = app_tenant_id() AND EXISTS (SELECT 1 FROM memories m WHERE m.id = src_id))
        WITH CHECK (tenant_id = app_tenant_id()
                    AND EXISTS (SELECT 1 FROM memories m WHERE m.id = src_id)
                    AND EXISTS (SELECT 1 FROM memories m WHERE m.id = dst_id));
    `);
  }
}
