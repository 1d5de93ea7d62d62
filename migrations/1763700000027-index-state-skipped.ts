import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A soft-deleted memory wants no index: its index state leaves `pending` for `skipped`, so the
 * reconciliation sweep no longer re-queues it every INDEX_RECONCILE_AFTER_MS and the pending backlog
 * (`memsvc_index_pending`) can reach 0 again. The index job and the sweep settle a deleted memory's
 * pending state as `skipped`; a restore marks it `pending` again with a new job. A state that was
 * `indexed` stays so through a delete: its vectors are kept and a restore finds them current.
 *
 * The states already left pending by deleted memories are settled here once.
 */
export class IndexStateSkipped1763700000027 implements MigrationInterface {
  name = 'IndexStateSkipped1763700000027';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`SELECT set_config('app.system', 'on', true)`);
    await q.query(`
      ALTER TABLE memory_index_state DROP CONSTRAINT memory_index_state_status_check;
      ALTER TABLE memory_index_state ADD CONSTRAINT memory_index_state_status_check
        CHECK (status IN ('pending', 'indexed', 'failed', 'skipped'));

      UPDATE memory_index_state s SET status = 'skipped', updated_at = now()
        FROM memories m
       WHERE m.id = s.memory_id AND m.deleted_at IS NOT NULL AND s.status = 'pending';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`SELECT set_config('app.system', 'on', true)`);
    await q.query(`
      UPDATE memory_index_state SET status = 'pending' WHERE status = 'skipped';
      ALTER TABLE memory_index_state DROP CONSTRAINT memory_index_state_status_check;
      ALTER TABLE memory_index_state ADD CONSTRAINT memory_index_state_status_check
        CHECK (status IN ('pending', 'indexed', 'failed'));
    `);
  }
}
