import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Outbox delivery support.
 *
 * - A statement-level trigger NOTIFYs `outbox_inserted` after inserts. Notifications are sent at
 *   commit (never for rolled-back writes), so relays listening on the channel pick new rows up at
 *   once; polling remains the fallback (and the only mechanism on embedded PGlite).
 * - `available_at` lets the relay park rows it cannot queue (a job name only a newer release
 *   knows) without blocking the rows behind them.
 */
export class OutboxNotify1763700000001 implements MigrationInterface {
  name = 'OutboxNotify1763700000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE outbox ADD COLUMN available_at timestamptz NOT NULL DEFAULT now();

      CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('outbox_inserted', '');
        RETURN NULL;
      END $$;

      CREATE TRIGGER outbox_notify AFTER INSERT ON outbox
        FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER IF EXISTS outbox_notify ON outbox;
      DROP FUNCTION IF EXISTS outbox_notify();
      ALTER TABLE outbox DROP COLUMN IF EXISTS available_at;
    `);
  }
}
