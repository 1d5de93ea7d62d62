import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Corrections by anyone, with review.
 *
 * - `memories.review_state`: `accepted` (in force: recall, the startup context and the supersedes
 *   walk serve it), `proposed` (a teammate's correction of a memory they may not change, or a new team
 *   memory in a tenant that reviews them: visible to the team as a proposal, served by nothing) or
 *   `rejected` (also soft-deleted). Every row written before this migration is `accepted`.
 * - `tenants.review_team_memories` (default off): a new team memory of a member starts `proposed`
 *   until an admin accepts it. `tenants.proposal_auto_accept_hours` (default null: never): a proposal
 *   nobody rejected within that many hours is accepted by the expiry sweep.
 * - `memory_initial_review(tenant, visibility)`: the state a new row starts in, read by the INSERT
 *   itself (the tenant row the transaction's own tenant policy shows).
 *
 * Accepting or rejecting changes a row its proposer owns on behalf of the reviewer (the owner of the
 * memory it corrects, or an admin): the API checks that right in the reviewer's transaction and
 * changes `review_state` as the system, so `memory_app` holds no UPDATE on the column.
 */
export class MemoryReview1763700000048 implements MigrationInterface {
  name = 'MemoryReview1763700000048';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE memories ADD COLUMN review_state text NOT NULL DEFAULT 'accepted'
        CHECK (review_state IN ('accepted', 'proposed', 'rejected'));
      CREATE INDEX memories_proposals ON memories (tenant_id, created_at DESC)
        WHERE review_state = 'proposed' AND deleted_at IS NULL;

      ALTER TABLE tenants ADD COLUMN review_team_memories boolean NOT NULL DEFAULT false;
      ALTER TABLE tenants ADD COLUMN proposal_auto_accept_hours integer
        CHECK (proposal_auto_accept_hours IS NULL OR proposal_auto_accept_hours BETWEEN 1 AND 8760);
      GRANT UPDATE (review_team_memories, proposal_auto_accept_hours) ON tenants TO memory_app;

      CREATE FUNCTION memory_initial_review(p_tenant uuid, p_visibility text) RETURNS text
        LANGUAGE sql STABLE PARALLEL SAFE
        AS $$ SELECT CASE WHEN p_visibility = 'team' AND NOT app_is_tenant_admin()
                               AND coalesce((SELECT t.review_team_memories FROM tenants t WHERE t.id = p_tenant), false)
                          THEN 'proposed' ELSE 'accepted' END $$;
      GRANT EXECUTE ON FUNCTION memory_initial_review(uuid, text) TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP FUNCTION memory_initial_review(uuid, text);
      REVOKE UPDATE (review_team_memories, proposal_auto_accept_hours) ON tenants FROM memory_app;
      ALTER TABLE tenants DROP COLUMN proposal_auto_accept_hours, DROP COLUMN review_team_memories;
      DROP INDEX memories_proposals;
      ALTER TABLE memories DROP COLUMN review_state;
    `);
  }
}
