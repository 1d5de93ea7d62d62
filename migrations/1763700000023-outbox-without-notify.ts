import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox insert trigger no longer NOTIFYs. Postgres takes one database-wide lock at the commit
 * of every transaction that sent a notification and holds it through the commit's WAL flush, so
 * every write with an outbox row (every memory store) queued behind every other at commit. The
 * process that commits outbox rows now wakes its own relay (`OutboxSignal`); polling covers the rest.
 */
export class OutboxWithoutNotify1763700000023 implements MigrationInterface {
  name = 'OutboxWithoutNotify1763700000023';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER IF EXISTS outbox_notify ON outbox;
      DROP FUNCTION IF EXISTS outbox_notify();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('outbox_inserted', '');
        RETURN NULL;
      END $$;
      CREATE TRIGGER outbox_notify AFTER INSERT ON outbox
        FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();
    `);
  }
}
