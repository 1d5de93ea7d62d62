import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * While the workers are behind, the relay leaves new `memory.index` rows in the outbox (they are
 * coalesced into large batches later) and claims only the other jobs' rows, every 20 ms and after
 * every commit. Found through `outbox_undispatched` in id order, that claim read every held row
 * first: its cost grew with the backlog it was holding. Each job's undispatched rows in id order
 * let it read only the rows it takes.
 */
export class OutboxClaimByJob1763700000037 implements MigrationInterface {
  name = 'OutboxClaimByJob1763700000037';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX IF NOT EXISTS outbox_undispatched_job ON outbox (job_name, id) WHERE dispatched_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS outbox_undispatched_job`);
  }
}
