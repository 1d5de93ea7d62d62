import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Branch-scoped memories.
 *
 * - `memories.branch`: set on a memory that belongs to one branch of its project (what a session on a
 *   feature branch learned). Recall and the startup context serve it only to sessions on that branch
 *   of that project; reading it by id, lists and export show it to whoever may read it, with
 *   its branch. A merge of the branch (a code event, or the promote route) clears it: the memory is
 *   the project's from then on. Deleting the branch without a merge soft-deletes its memories
 *   (restorable). Not a sync-tracked column: the scope says where recall serves a memory, not who may
 *   read it.
 * - `tenants.capture_branch_scope` (default on): session capture on a branch other than the mainline
 *   (main, master, trunk, develop) stores branch-scoped memories.
 * - `code_events.branch_deleted`: the event reports its branch deleted (without a merge);
 *   `branch_memories`: how many memories the event promoted (a merge) or dropped (a deletion).
 */
export class BranchScope1763700000051 implements MigrationInterface {
  name = 'BranchScope1763700000051';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE memories ADD COLUMN branch text CHECK (branch IS NULL OR (length(branch) BETWEEN 1 AND 255));
      CREATE INDEX memories_branch ON memories (tenant_id, project, branch) WHERE branch IS NOT NULL;
      GRANT UPDATE (branch) ON memories TO memory_app;
      ALTER TABLE tenants ADD COLUMN capture_branch_scope boolean NOT NULL DEFAULT true;
      GRANT UPDATE (capture_branch_scope) ON tenants TO memory_app;
      CREATE FUNCTION app_capture_branch_scope() RETURNS boolean
        LANGUAGE sql STABLE PARALLEL SAFE
        AS $$ SELECT coalesce((SELECT t.capture_branch_scope FROM tenants t WHERE t.id = app_tenant_id()), true) $$;
      GRANT EXECUTE ON FUNCTION app_capture_branch_scope() TO memory_app;
      ALTER TABLE code_events ADD COLUMN branch_deleted boolean NOT NULL DEFAULT false;
      ALTER TABLE code_events ADD COLUMN branch_memories integer;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE code_events DROP COLUMN branch_memories, DROP COLUMN branch_deleted;
      DROP FUNCTION app_capture_branch_scope();
      REVOKE UPDATE (capture_branch_scope) ON tenants FROM memory_app;
      ALTER TABLE tenants DROP COLUMN capture_branch_scope;
      REVOKE UPDATE (branch) ON memories FROM memory_app;
      ALTER TABLE memories DROP COLUMN branch;
    `);
  }
}
