import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The expiry job finds live memories past their `expires_at` through this index. */
export class MemoryExpiry1763700000006 implements MigrationInterface {
  name = 'MemoryExpiry1763700000006';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX memories_expiring ON memories (expires_at) WHERE deleted_at IS NULL AND expires_at IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS memories_expiring`);
  }
}
