import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PurgeOutboxJob } from '@app/jobs';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';

/**
 * Every memory write leaves an outbox row that the relay only marks dispatched: the retention job
 * deletes those dispatched a day ago or more, and never a row still waiting to be queued.
 */
describe('outbox retention', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 2);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('deletes rows dispatched a day ago or more, and keeps recent and undispatched ones whatever their age', async () => {
    const tenant = await createTestTenant(db, 'outbox-retention');
    const rows = {
      dispatchedTwoDaysAgo: `now() - interval '2 days'`,
      dispatchedADayAndAnHourAgo: `now() - interval '25 hours'`,
      dispatchedAnHourAgo: `now() - interval '1 hour'`,
      neverDispatched: 'NULL',
    } as const;
    const ids = new Map<string, string>();
    await db.tx.asSystem(async (tx) => {
      for (const [name, dispatchedAt] of Object.entries(rows)) {
        const { rows: inserted } = await tx.query<{ id: string }>(
          `INSERT INTO outbox (tenant_id, job_name, payload, created_at, dispatched_at)
           VALUES ($1, 'sessions.extract', '{}', now() - interval '3 days', ${dispatchedAt})
           RETURNING id::text AS id`,
          [tenant.tenantId],
        );
        ids.set(name, inserted[0].id);
      }
    });
    const removed = await new PurgeOutboxJob(db.tx).purge();
    expect(removed).toBeGreaterThanOrEqual(2);
    const { rows: left } = await db.tx.asSystem((tx) =>
      tx.query<{ id: string }>(`SELECT id::text AS id FROM outbox WHERE tenant_id = $1 ORDER BY id`, [
        tenant.tenantId,
      ]),
    );
    expect(left.map((r) => r.id)).toEqual([ids.get('dispatchedAnHourAgo'), ids.get('neverDispatched')]);
    await db.tx.asSystem((tx) => tx.query(`DELETE FROM outbox WHERE tenant_id = $1`, [tenant.tenantId]));
  });
});
