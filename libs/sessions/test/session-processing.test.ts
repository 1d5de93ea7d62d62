import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OutboxWriter } from '@app/jobs';
import { SecretDetector } from '@app/secrets';
import {
  ProcessSessionEventsUseCase,
  RecordSessionEventsUseCase,
  StartSessionUseCase,
  type NewSessionEvent,
} from '@app/sessions';
import { SessionEventRepository, SessionRepository, SessionScreen } from '@app/sessions/testing';
import { type Principal } from '@app/tenancy';
import { createTestTenant, memberPrincipal, openTestDatabase, type TestDatabase } from '@app/testing';

/**
 * Event capture queues one processing job per session at a time: a fast agent's batches do not
 * each cost a relay pass and a worker run, and no batch is ever left without a job to handle it.
 */
describe('session event processing (one queued job per session)', () => {
  let db: TestDatabase;
  let start: StartSessionUseCase;
  let record: RecordSessionEventsUseCase;
  let process: ProcessSessionEventsUseCase;
  let alice: Principal;

  const raw = async <T>(sql: string, params: unknown[] = []) =>
    (await db.dataSource.query(sql, params)) as T[];
  const jobs = async (sessionId: string) =>
    (
      await raw(`SELECT 1 FROM outbox WHERE job_name = 'sessions.process' AND payload->>'sessionId' = $1`, [
        sessionId,
      ])
    ).length;
  const unprocessed = async (sessionId: string) =>
    (
      await raw<{ n: number }>(
        `SELECT count(*)::int AS n FROM session_events WHERE session_id = $1 AND processed_at IS NULL`,
        [sessionId],
      )
    )[0].n;
  const batch = (n: number): NewSessionEvent[] =>
    Array.from({ length: n }, (_, i) => ({ kind: 'observation', payload: { text: `step ${i}` } }));
  const newSession = async () => (await start.execute(alice, { agent: 'claude-code' })).id;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 8);
    const screen = new SessionScreen(new SecretDetector());
    const sessions = new SessionRepository();
    const events = new SessionEventRepository();
    start = new StartSessionUseCase(db.tx, sessions, screen);
    record = new RecordSessionEventsUseCase(db.tx, events, sessions, new OutboxWriter(), screen);
    process = new ProcessSessionEventsUseCase(db.tx, events);
    alice = await memberPrincipal(await createTestTenant(db), 'alice');
  });
  afterAll(async () => db.close());

  it('queues a job with the first batch only, until that job has run; then the next batch queues one', async () => {
    const id = await newSession();
    for (let i = 0; i < 5; i++) await record.execute(alice, id, batch(10));
    expect(await jobs(id)).toBe(1);
    expect(await process.execute({ tenantId: alice.tenantId, userId: alice.userId }, id)).toBe(50);
    expect(await unprocessed(id)).toBe(0);

    await record.execute(alice, id, batch(3));
    expect(await jobs(id)).toBe(2);
    // A job delivered twice finds nothing left and does no harm.
    expect(await process.execute({ tenantId: alice.tenantId, userId: alice.userId }, id)).toBe(3);
    expect(await process.execute({ tenantId: alice.tenantId, userId: alice.userId }, id)).toBe(0);
  });

  it('leaves no batch behind when batches and the job race: every event ends up processed', async () => {
    const id = await newSession();
    const scope = { tenantId: alice.tenantId, userId: alice.userId };
    // Writers and the job interleave freely; after the last job run nothing may be unprocessed
    // unless a job is still queued for it (the flag is set).
    const writers = Array.from({ length: 4 }, async () => {
      for (let i = 0; i < 10; i++) await record.execute(alice, id, batch(2));
    });
    const runner = (async () => {
      for (let i = 0; i < 15; i++) await process.execute(scope, id);
    })();
    await Promise.all([...writers, runner]);
    const [{ queued }] = await raw<{ queued: boolean }>(
      `SELECT processing_queued AS queued FROM sessions WHERE id = $1`,
      [id],
    );
    if ((await unprocessed(id)) > 0) expect(queued).toBe(true);
    // The queued job (as the worker would run it) then handles the rest.
    await process.execute(scope, id);
    expect(await unprocessed(id)).toBe(0);
    expect(await jobs(id)).toBeLessThan(40);
  });

  it('a batch into someone else’s session queues nothing', async () => {
    const other = await memberPrincipal(await createTestTenant(db), 'mallory');
    const id = await newSession();
    await expect(record.execute(other, id, batch(1))).rejects.toMatchObject({ code: 'session_not_found' });
    expect(await jobs(id)).toBe(0);
  });
});
