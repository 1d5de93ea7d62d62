import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One background processing job per session at a time, however fast its events arrive:
 * `sessions.processing_queued` is set by the event batch that queues a `sessions.process` job and
 * cleared by that job, under the session's row lock, so batches arriving meanwhile add no job (the
 * queued one handles them) and none is left without one.
 */
export class SessionProcessingQueued1763700000016 implements MigrationInterface {
  name = 'SessionProcessingQueued1763700000016';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE sessions ADD COLUMN processing_queued boolean NOT NULL DEFAULT false;
      GRANT UPDATE (processing_queued) ON sessions TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions DROP COLUMN IF EXISTS processing_queued`);
  }
}
