import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the read paths that walk a caller's visible set branch by branch:
 * - the list indexes of migration 1763700000022 also carry every column the memories read policy
 *   and the list's filters look at (tenant, visibility, expiry, tags, owner), so counting a
 *   caller's visible rows for a list's `total` is an index-only scan, not a heap visit per row;
 * - the sync feed's team branch walks a tenant's team rows in change order without passing over
 *   its private ones.
 */
export class ReadPathIndexes1763700000024 implements MigrationInterface {
  name = 'ReadPathIndexes1763700000024';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS memories_owner_list_live, memories_team_list_live`);
    await q.query(`
      CREATE INDEX memories_owner_list_live ON memories (owner_id, importance DESC, created_at DESC, id DESC)
        INCLUDE (tenant_id, visibility, expires_at, tags) WHERE deleted_at IS NULL;
      CREATE INDEX memories_team_list_live ON memories (tenant_id, importance DESC, created_at DESC, id DESC)
        INCLUDE (owner_id, visibility, expires_at, tags) WHERE deleted_at IS NULL AND visibility = 'team';
      CREATE INDEX memories_team_change ON memories (tenant_id, change_seq, id) WHERE visibility = 'team'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `DROP INDEX IF EXISTS memories_owner_list_live, memories_team_list_live, memories_team_change`,
    );
    await q.query(`
      CREATE INDEX memories_owner_list_live ON memories (owner_id, importance DESC, created_at DESC, id DESC)
        WHERE deleted_at IS NULL;
      CREATE INDEX memories_team_list_live ON memories (tenant_id, importance DESC, created_at DESC, id DESC)
        WHERE deleted_at IS NULL AND visibility = 'team'`);
  }
}
