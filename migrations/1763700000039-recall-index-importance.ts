import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The in-memory text index's feed (`recall_text_index_doc`, 1763700000028) also carries each
 * memory's importance, as a 13th element: with it, project and creation time already in the index,
 * recall ranks its candidates from the index instead of reading them again in Postgres
 * (`TenantTextIndex.describe`). Processes of the previous release read the first 12 elements and
 * ignore the new one; a process that meets a document without it reads ranking facts in Postgres.
 */
/** `recall_text_index_doc` with `extra` elements after the 12 of 1763700000028. */
const docFunction = (extra: string) => `
  CREATE OR REPLACE FUNCTION recall_text_index_doc(m memories) RETURNS json
    LANGUAGE sql STABLE SET search_path = pg_catalog, public AS $$
    SELECT json_build_array(
             m.id, m.change_seq, m.deleted_at IS NULL, m.owner_id, m.visibility = 'team', m.tags, m.category,
             m.project, extract(epoch FROM m.created_at) * 1000, extract(epoch FROM m.expires_at) * 1000,
             tsvector_to_array(m.search_vector),
             ARRAY(SELECT text_weighted_tf(u.weights) FROM unnest(m.search_vector) u)${extra})
  $$;`;

export class RecallIndexImportance1763700000039 implements MigrationInterface {
  name = 'RecallIndexImportance1763700000039';

  async up(q: QueryRunner): Promise<void> {
    await q.query(docFunction(', m.importance'));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(docFunction(''));
  }
}
