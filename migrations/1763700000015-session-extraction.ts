import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Session capture: which captured events the `sessions.extract` job has turned into candidate
 * memories (`session_events.extracted_at`), and when a session was last extracted
 * (`sessions.extracted_at`). The job reads only unextracted events and marks them after their
 * candidates are handled, so running it again creates nothing twice; events sent after a session
 * ended are extracted when it is ended again.
 */
export class SessionExtraction1763700000015 implements MigrationInterface {
  name = 'SessionExtraction1763700000015';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE sessions ADD COLUMN extracted_at timestamptz;
      ALTER TABLE session_events ADD COLUMN extracted_at timestamptz;
      GRANT UPDATE (extracted_at) ON sessions, session_events TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE session_events DROP COLUMN IF EXISTS extracted_at;
      ALTER TABLE sessions DROP COLUMN IF EXISTS extracted_at;
    `);
  }
}
