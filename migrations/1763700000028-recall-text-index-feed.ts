import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The delta as a SQL function (1763700000029 replaces it with the same body in PL/pgSQL, and its
 * down migration puts this one back).
 */
export const RECALL_TEXT_INDEX_DELTA_SQL = `
      CREATE OR REPLACE FUNCTION recall_text_index_delta(p_after bigint, p_query text,
        OUT horizon bigint, OUT lexemes text[], OUT changed json, OUT removed json,
        OUT shared bigint[], OUT tag_rules json)
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
        SELECT sync_horizon(),
               -- In the database's collation: ties between equally rare terms break the same way.
               ARRAY(SELECT x FROM unnest(tsvector_to_array(to_tsvector('english', p_query))) x ORDER BY x),
               (SELECT coalesce(json_agg(recall_text_index_doc(m)), '[]') FROM memories m
                 WHERE m.tenant_id = app_tenant_id() AND m.change_seq >= p_after),
               (SELECT coalesce(json_agg(json_build_array(r.memory_id, r.xid)), '[]') FROM (
                  SELECT a.memory_id, max(a.xid) AS xid FROM sync_audience_changes a
                   WHERE a.tenant_id = app_tenant_id() AND a.audience IN ('user', 'tenant', 'admins')
                     AND a.xid >= p_after
                     AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = a.memory_id AND m.tenant_id = a.tenant_id)
                   GROUP BY a.memory_id) r),
               ARRAY(SELECT s.memory_id FROM memory_shares s
                      WHERE s.shared_with = app_user_id() AND s.tenant_id = app_tenant_id()),
               (SELECT coalesce(json_agg(json_build_array(t.owner_id, t.tag)), '[]') FROM tag_shares t
                 WHERE t.shared_with = app_user_id() AND t.tenant_id = app_tenant_id())
      $$;
`;

/**
 * The feed behind each API process's in-memory text index (libs/recall, `TextIndexRegistry`).
 *
 * The index is a derived read model of a tenant's live memories: their `search_vector` lexemes
 * with weighted frequencies (as migration 1763700000017 counts them: A 10, B 4, C 2, D 1 tenths),
 * and the facts the recall filters and the read rule need. Postgres stays the source of truth and
 * row-level security the authority: the index only proposes ids, which recall reads again under the
 * caller's policies.
 *
 * - `recall_text_index_page(after, limit)`: one page of the caller's tenant's live memories, by id.
 *   A load takes `sync_horizon()` first, then pages; a row changed while the pages are read has a
 *   position at or above that horizon (migration 1763700000008 argues why), so the next delta
 *   brings it again whatever the page saw.
 * - `recall_text_index_delta(after, query)`: everything the index needs at a recall, in ONE
 *   statement: the query's lexemes (Postgres' own parser and stemmer, in collation order), the tenant's rows changed at
 *   or after position `after` (live or not: a soft delete is a change), the ids of memories removed
 *   outright since with the position of their removal (purges, a user deleted: their
 *   `sync_audience_changes` records), the caller's
 *   direct shares and tag rules (the index pre-filters by them; they are read fresh each time, so a
 *   share or unshare counts at once), and the new horizon.
 *
 * Both are SECURITY DEFINER so they see the whole tenant (BM25 statistics are tenant-wide, as in
 * `recall_text_search`), and both answer for the transaction's own tenant (`app_tenant_id()`) only:
 * no argument names a tenant. Their rows never leave the process: the index hands out ids, and
 * recall serves only what the caller may read under row-level security.
 *
 * `expires_at` joins the columns whose change moves a memory's position: an expiry set or lifted
 * later changes what recall (and a sync copy) should hold.
 */
export class RecallTextIndexFeed1763700000028 implements MigrationInterface {
  name = 'RecallTextIndexFeed1763700000028';

  async up(q: QueryRunner): Promise<void> {
    await q.query(changeSeqFunction([...TRACKED_COLUMNS, 'expires_at']));
    await q.query(`
      -- One memory as the index holds it (times as epoch milliseconds; no expiry: NULL).
      CREATE FUNCTION recall_text_index_doc(m memories) RETURNS json
        LANGUAGE sql STABLE SET search_path = pg_catalog, public AS $$
        SELECT json_build_array(
                 m.id, m.change_seq, m.deleted_at IS NULL, m.owner_id, m.visibility = 'team', m.tags, m.category,
                 m.project, extract(epoch FROM m.created_at) * 1000, extract(epoch FROM m.expires_at) * 1000,
                 tsvector_to_array(m.search_vector),
                 ARRAY(SELECT text_weighted_tf(u.weights) FROM unnest(m.search_vector) u))
      $$;

      CREATE FUNCTION recall_text_index_page(p_after bigint, p_limit integer)
        RETURNS TABLE (doc json)
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
        SELECT recall_text_index_doc(m) FROM memories m
         WHERE m.tenant_id = app_tenant_id() AND m.id > p_after AND m.deleted_at IS NULL
         ORDER BY m.id LIMIT p_limit
      $$;

      ${RECALL_TEXT_INDEX_DELTA_SQL}

      REVOKE ALL ON FUNCTION recall_text_index_doc(memories), recall_text_index_page(bigint, integer),
        recall_text_index_delta(bigint, text) FROM PUBLIC;
      GRANT EXECUTE ON FUNCTION recall_text_index_page(bigint, integer), recall_text_index_delta(bigint, text)
        TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP FUNCTION IF EXISTS recall_text_index_delta(bigint, text), recall_text_index_page(bigint, integer),
        recall_text_index_doc(memories);
    `);
    await q.query(changeSeqFunction(TRACKED_COLUMNS));
  }
}

/** The columns whose change moved a memory's position before this migration (1763700000008). */
const TRACKED_COLUMNS = [
  'content',
  'category',
  'tags',
  'expanded_keywords',
  'importance',
  'project',
  'visibility',
  'is_sensitive',
  'deleted_at',
  'secret_ref',
  'tenant_id',
  'owner_id',
];

/** Migration 1763700000008's position trigger function over the given columns. */
function changeSeqFunction(columns: readonly string[]): string {
  const row = (alias: string) => `(${columns.map((c) => `${alias}.${c}`).join(', ')})`;
  return `
    CREATE OR REPLACE FUNCTION memories_assign_change_seq() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND ${row('NEW')} IS NOT DISTINCT FROM ${row('OLD')} THEN
        IF coalesce(current_setting('app.sync_rewrite', true), '') <> 'on' THEN
          NEW.change_seq := OLD.change_seq;
        END IF;
        RETURN NEW;
      END IF;
      NEW.change_seq := pg_current_xact_id()::text::bigint;
      RETURN NEW;
    END $$`;
}
