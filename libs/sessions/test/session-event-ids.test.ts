import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OutboxWriter } from '@app/jobs';
import { SecretDetector } from '@app/secrets';
import { RecordSessionEventsUseCase, StartSessionUseCase, type NewSessionEvent } from '@app/sessions';
import { SessionEventRepository, SessionRepository, SessionScreen } from '@app/sessions/testing';
import { type Principal } from '@app/tenancy';
import { createTestTenant, memberPrincipal, openTestDatabase, type TestDatabase } from '@app/testing';

/** Client event ids: a resent batch (a hook that never saw the answer) stores nothing twice. */
describe('session events with client ids (exactly once)', () => {
  let db: TestDatabase;
  let start: StartSessionUseCase;
  let record: RecordSessionEventsUseCase;
  let alice: Principal;
  let bob: Principal;
  let stranger: Principal;

  const raw = async <T>(sql: string, params: unknown[] = []) =>
    (await db.dataSource.query(sql, params)) as T[];
  const stored = (sessionId: string) =>
    raw<{ client_id: string | null; text: string }>(
      `SELECT client_id, payload->>'text' AS text FROM session_events WHERE session_id = $1 ORDER BY id`,
      [sessionId],
    );
  const jobs = async (sessionId: string) =>
    (
      await raw(`SELECT 1 FROM outbox WHERE job_name = 'sessions.process' AND payload->>'sessionId' = $1`, [
        sessionId,
      ])
    ).length;
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: { code?: string }) => error.code,
    );
  const note = (id: string | undefined, text: string): NewSessionEvent => ({
    kind: 'note',
    payload: { text },
    clientId: id,
  });
  const newSession = async (who: Principal) => (await start.execute(who, { agent: 'claude-code' })).id;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const screen = new SessionScreen(new SecretDetector());
    start = new StartSessionUseCase(db.tx, new SessionRepository(), screen);
    record = new RecordSessionEventsUseCase(
      db.tx,
      new SessionEventRepository(),
      new SessionRepository(),
      new OutboxWriter(),
      screen,
    );
    const tenant = await createTestTenant(db);
    alice = await memberPrincipal(tenant, 'alice');
    bob = await memberPrincipal(tenant, 'bob');
    stranger = await memberPrincipal(await createTestTenant(db), 'alice');
  });
  afterAll(async () => db.close());

  it('stores a resent batch once and counts the resend as duplicates', async () => {
    const id = await newSession(alice);
    const batch = [note('e-1', 'first'), note('e-2', 'second')];
    expect(await record.execute(alice, id, batch)).toEqual({ accepted: 2, duplicates: 0 });
    expect(await record.execute(alice, id, batch)).toEqual({ accepted: 0, duplicates: 2 });
    expect(await stored(id)).toEqual([
      { client_id: 'e-1', text: 'first' },
      { client_id: 'e-2', text: 'second' },
    ]);
    // Nothing new: no background job for the resend.
    expect(await jobs(id)).toBe(1);
  });

  it('stores the new events of a partly resent batch, in order, and keeps the first copy', async () => {
    const id = await newSession(alice);
    await record.execute(alice, id, [note('a', 'a')]);
    const result = await record.execute(alice, id, [note('a', 'a changed'), note('b', 'b'), note('c', 'c')]);
    expect(result).toEqual({ accepted: 2, duplicates: 1 });
    expect((await stored(id)).map((row) => row.text)).toEqual(['a', 'b', 'c']);
  });

  it('stores a repeated id inside one batch once', async () => {
    const id = await newSession(alice);
    expect(await record.execute(alice, id, [note('x', 'one'), note('x', 'two')])).toEqual({
      accepted: 1,
      duplicates: 1,
    });
    expect(await stored(id)).toEqual([{ client_id: 'x', text: 'one' }]);
  });

  it('always stores events without an id, and the same id in another session', async () => {
    const id = await newSession(alice);
    const other = await newSession(alice);
    await record.execute(alice, id, [note(undefined, 'plain'), note(undefined, 'plain')]);
    expect(await record.execute(alice, id, [note(undefined, 'plain')])).toEqual({
      accepted: 1,
      duplicates: 0,
    });
    expect(await record.execute(alice, other, [note('shared', 'x')])).toEqual({ accepted: 1, duplicates: 0 });
    expect(await record.execute(alice, id, [note('shared', 'x')])).toEqual({ accepted: 1, duplicates: 0 });
    expect(await stored(id)).toHaveLength(4);
  });

  it('stores concurrent resends of the same batch once', async () => {
    const id = await newSession(alice);
    const batch = Array.from({ length: 20 }, (_, i) => note(`c-${i}`, `event ${i}`));
    const results = await Promise.all([1, 2, 3, 4].map(() => record.execute(alice, id, batch)));
    expect(results.reduce((sum, r) => sum + r.accepted, 0)).toBe(20);
    expect(results.every((r) => r.accepted + r.duplicates === 20)).toBe(true);
    expect(await stored(id)).toHaveLength(20);
  });

  it("answers another user's or another tenant's session as not found, even with a known id", async () => {
    const id = await newSession(alice);
    await record.execute(alice, id, [note('known', 'mine')]);
    for (const who of [bob, stranger]) {
      expect(await codeOf(record.execute(who, id, [note('known', 'theirs')]))).toBe('session_not_found');
      expect(await codeOf(record.execute(who, id, [note('new', 'theirs')]))).toBe('session_not_found');
    }
    expect(await codeOf(record.execute(alice, randomUUID(), [note('k', 'x')]))).toBe('session_not_found');
    expect(await stored(id)).toEqual([{ client_id: 'known', text: 'mine' }]);
  });
});
