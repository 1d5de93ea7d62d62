import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The team-duplicate check on every store (`TEAM_DUPLICATE_SQL`: the same text among the teammates' live
 * team memories) looks rows up by `content_hash` across owners. The only hash index led with the owner,
 * so the check read the tenant's whole live team set: a few ms at 10,000 memories, 834 ms per store at
 * 1,000,000. This index answers it with one probe.
 */
export class TeamHashIndex1763700000054 implements MigrationInterface {
  name = 'TeamHashIndex1763700000054';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX memories_team_hash_live ON memories (tenant_id, content_hash)
        WHERE deleted_at IS NULL AND visibility = 'team'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS memories_team_hash_live`);
  }
}
