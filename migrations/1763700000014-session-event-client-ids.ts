import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Exactly-once capture: a client may give each event its own id, and the same id sent again to the
 * same session is not stored twice. Hooks resend a batch whose answer they never saw (a timeout
 * after the server stored it), so without this a flaky network would duplicate events.
 *
 * The id is nullable (events without one are always stored) and unique per session; NULLs are
 * distinct in a unique index, so old rows and id-less events never conflict.
 */
export class SessionEventClientIds1763700000014 implements MigrationInterface {
  name = 'SessionEventClientIds1763700000014';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE session_events
        ADD COLUMN client_id text CHECK (client_id IS NULL OR char_length(client_id) BETWEEN 1 AND 100);
      CREATE UNIQUE INDEX session_events_client_id ON session_events (session_id, client_id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX IF EXISTS session_events_client_id;
      ALTER TABLE session_events DROP COLUMN IF EXISTS client_id;
    `);
  }
}
