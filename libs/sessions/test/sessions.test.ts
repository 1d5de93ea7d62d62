import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CreateMemoryUseCase } from '@app/memories';
import { MemoryReadRepository } from '@app/memories/testing';
import { OutboxWriter } from '@app/jobs';
import { SecretDetector } from '@app/secrets';
import {
  GetSessionTimelineUseCase,
  GetSessionUseCase,
  ListSessionsUseCase,
  ProcessSessionEventsUseCase,
  RecordSessionEventsUseCase,
  SESSION_LIMITS,
  StartSessionUseCase,
  UpdateSessionUseCase,
} from '@app/sessions';
import { SessionEventRepository, SessionRepository, SessionScreen } from '@app/sessions/testing';
import { AuditWriter, type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWriterFor } from '../../../test/support/memory-writes';
import { fakeGithubToken } from '../../../test/support/fake-secrets';

/** Sessions and captured events against real Postgres with row-level security. */
describe('sessions', () => {
  let db: TestDatabase;
  let start: StartSessionUseCase;
  let update: UpdateSessionUseCase;
  let list: ListSessionsUseCase;
  let get: GetSessionUseCase;
  let record: RecordSessionEventsUseCase;
  let timeline: GetSessionTimelineUseCase;
  let processEvents: ProcessSessionEventsUseCase;
  let createMemory: CreateMemoryUseCase;
  let alice: Principal;
  let bob: Principal;
  let admin: Principal;
  let stranger: Principal;

  /** Runs SQL as the application role with a principal's settings, as the API does. */
  const asApp = <T>(who: Principal, sql: string, params: unknown[] = []) =>
    db.tx.inTenant(who, async (tx) => (await tx.query<T>(sql, params)).rows);
  /** The table as it is, seen by the superuser (no row-level security). */
  const raw = async <T>(sql: string, params: unknown[] = []) =>
    (await db.dataSource.query(sql, params)) as T[];
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: { code?: string }) => error.code,
    );

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const sessions = new SessionRepository();
    const events = new SessionEventRepository();
    const screen = new SessionScreen(new SecretDetector());
    const memories = new MemoryReadRepository();
    start = new StartSessionUseCase(db.tx, sessions, screen);
    update = new UpdateSessionUseCase(db.tx, sessions, screen, new OutboxWriter(), new AuditWriter());
    list = new ListSessionsUseCase(db.tx, sessions);
    get = new GetSessionUseCase(db.tx, sessions, events);
    record = new RecordSessionEventsUseCase(db.tx, events, sessions, new OutboxWriter(), screen);
    timeline = new GetSessionTimelineUseCase(db.tx, sessions, events, memories);
    processEvents = new ProcessSessionEventsUseCase(db.tx, events);
    createMemory = new CreateMemoryUseCase(
      await memoryWriterFor(db.tx, { maxContentBytes: 4096, maxImportBatch: 10, maxListLimit: 100 }),
    );
    const tenant = await createTestTenant(db);
    alice = await memberPrincipal(tenant, 'alice');
    bob = await memberPrincipal(tenant, 'bob');
    admin = { ...(await memberPrincipal(tenant, 'admin')), scopes: ['memories:read', 'admin'] };
    stranger = await memberPrincipal(await createTestTenant(db), 'alice');
  });
  afterAll(async () => db.close());

  describe('start', () => {
    it('derives the project from the git remote, without the credentials in it', async () => {
      const session = await start.execute(alice, {
        agent: 'claude-code',
        gitRemote: 'https://alice:secret-pass@github.com/Acme/Atlas.git',
        gitBranch: 'main',
        cwd: '/home/alice/atlas',
      });
      expect(session).toMatchObject({
        created: true,
        project: 'github.com/acme/atlas',
        gitRemote: 'https://github.com/Acme/Atlas.git',
        status: 'active',
        endedAt: null,
      });
      const explicit = await start.execute(alice, {
        agent: 'codex',
        project: 'atlas-docs',
        gitRemote: 'git@github.com:acme/atlas.git',
      });
      expect(explicit.project).toBe('atlas-docs');
    });

    it('answers the existing session when started again with the same id', async () => {
      const id = randomUUID();
      const first = await start.execute(alice, { id, agent: 'claude-code', project: 'one' });
      const again = await start.execute(alice, { id, agent: 'other', project: 'two' });
      expect(first.created).toBe(true);
      expect(again).toEqual({ ...first, created: false });
      expect(await raw(`SELECT 1 FROM sessions WHERE id = $1`, [id])).toHaveLength(1);
    });

    it('refuses an id that another user of the tenant holds; another tenant keeps its own session of that id', async () => {
      const id = randomUUID();
      await start.execute(alice, { id, agent: 'claude-code', project: 'mine' });
      expect(await codeOf(start.execute(bob, { id, agent: 'x' }))).toBe('session_id_taken');
      expect(await start.execute(stranger, { id, agent: 'x', project: 'theirs' })).toMatchObject({
        id,
        project: 'theirs',
        created: true,
      });
      expect(await get.execute(alice, id)).toMatchObject({ id, project: 'mine' });
      expect(await get.execute(stranger, id)).toMatchObject({ id, project: 'theirs' });
      expect(await raw(`SELECT project FROM sessions WHERE id = $1 ORDER BY project`, [id])).toEqual([
        { project: 'mine' },
        { project: 'theirs' },
      ]);
    });
  });

  describe('reads and changes', () => {
    let id: string;

    beforeAll(async () => {
      id = (await start.execute(alice, { agent: 'claude-code', project: 'reads' })).id;
      await record.execute(alice, id, [
        { kind: 'prompt', payload: { text: 'make the build faster' } },
        { kind: 'tool_call', payload: { tool: 'Bash', input: 'npm run build' } },
        { kind: 'tool_call', payload: { tool: 'Read', input: 'package.json' } },
      ]);
    });

    it('counts events per kind, and the job marks them processed', async () => {
      const before = await get.execute(alice, id);
      expect(before.eventCounts).toEqual({
        byKind: { prompt: 1, tool_call: 2, observation: 0, note: 0, correction: 0 },
        total: 3,
        processed: 0,
      });
      const jobs = await raw<{ payload: { sessionId: string } }>(
        `SELECT payload FROM outbox WHERE job_name = 'sessions.process' AND payload->>'sessionId' = $1`,
        [id],
      );
      expect(jobs).toEqual([{ payload: expect.objectContaining({ sessionId: id, userId: alice.userId }) }]);
      expect(await processEvents.execute(alice, id)).toBe(3);
      expect(await processEvents.execute(alice, id)).toBe(0);
      expect((await get.execute(alice, id)).eventCounts.processed).toBe(3);
    });

    it('ends a session and keeps its summary', async () => {
      const ended = await update.execute(alice, id, { status: 'ended', summary: 'Build cache enabled' });
      expect(ended).toMatchObject({
        status: 'ended',
        summary: 'Build cache enabled',
        endedAt: expect.any(String),
      });
      expect(await codeOf(update.execute(alice, id, {}))).toBe('no_fields_to_update');
    });

    it('lists own sessions by project and time, newest first', async () => {
      const other = await start.execute(alice, {
        agent: 'cursor',
        project: 'reads',
        startedAt: '2020-01-01T00:00:00Z',
      });
      const listed = await list.execute(alice, { project: 'reads' });
      expect(listed.map((s) => s.id)).toEqual([id, other.id]);
      const recent = await list.execute(alice, { project: 'reads', since: '2021-01-01T00:00:00Z' });
      expect(recent.map((s) => s.id)).toEqual([id]);
      expect(await list.execute(bob, { project: 'reads' })).toEqual([]);
      expect(await list.execute(stranger, { project: 'reads' })).toEqual([]);
    });

    it('hides a session from another user and another tenant; a tenant admin reads it', async () => {
      for (const who of [bob, stranger]) {
        expect(await codeOf(get.execute(who, id))).toBe('session_not_found');
        expect(await codeOf(update.execute(who, id, { status: 'abandoned' }))).toBe('session_not_found');
        expect(await codeOf(record.execute(who, id, [{ kind: 'note', payload: {} }]))).toBe(
          'session_not_found',
        );
        expect(await codeOf(timeline.execute(who, id))).toBe('session_not_found');
      }
      expect((await get.execute(admin, id)).eventCounts.total).toBe(3);
      expect((await get.execute(alice, id)).status).toBe('ended');
    });

    it('holds the same rules in the database: row-level security as the application role', async () => {
      const sessionSql = `SELECT id FROM sessions WHERE id = $1`;
      const eventSql = `SELECT id FROM session_events WHERE session_id = $1`;
      expect(await asApp(bob, sessionSql, [id])).toEqual([]);
      expect(await asApp(bob, eventSql, [id])).toEqual([]);
      expect(await asApp(stranger, sessionSql, [id])).toEqual([]);
      expect(await asApp(alice, eventSql, [id])).toHaveLength(3);
      expect(await asApp(admin, sessionSql, [id])).toHaveLength(1);
      expect(await asApp(admin, eventSql, [id])).toHaveLength(3);
      // Writing into someone else's session is refused by the policy itself.
      await expect(
        asApp(
          bob,
          `INSERT INTO session_events (tenant_id, session_id, user_id, kind, payload) VALUES ($1, $2, $3, 'note', '{}')`,
          [bob.tenantId, id, bob.userId],
        ),
      ).rejects.toThrow(/row-level security/);
      expect(await asApp(bob, `UPDATE sessions SET summary = 'x' WHERE id = $1 RETURNING id`, [id])).toEqual(
        [],
      );
      expect(
        await asApp(admin, `UPDATE sessions SET summary = 'x' WHERE id = $1 RETURNING id`, [id]),
      ).toEqual([]);
      // Nobody moves a session to another user through the application role.
      await expect(
        asApp(alice, `UPDATE sessions SET user_id = $2 WHERE id = $1`, [id, bob.userId]),
      ).rejects.toThrow(/permission denied/);
    });
  });

  describe('team session visibility (a tenant setting, off by default)', () => {
    let id: string;
    const setTeamSessions = (on: boolean) =>
      asApp(admin, `UPDATE tenants SET team_session_visibility = $1 WHERE id = $2 RETURNING id`, [
        on,
        admin.tenantId,
      ]);

    beforeAll(async () => {
      id = (await start.execute(alice, { agent: 'claude-code', project: 'team-read' })).id;
      await record.execute(alice, id, [{ kind: 'note', payload: { text: 'shared with the team?' } }]);
    });
    afterAll(async () => setTeamSessions(false));

    it('lets teammates read sessions and events once on, never change them; never another tenant', async () => {
      expect(await codeOf(get.execute(bob, id))).toBe('session_not_found');
      expect(await setTeamSessions(true)).toHaveLength(1);

      expect((await get.execute(bob, id)).eventCounts.total).toBe(1);
      expect((await timeline.execute(bob, id)).events).toHaveLength(1);
      expect((await list.execute(bob, { project: 'team-read', team: true })).map((s) => s.id)).toEqual([id]);
      expect(await list.execute(bob, { project: 'team-read' })).toEqual([]);
      expect(await codeOf(update.execute(bob, id, { summary: 'mine now' }))).toBe('session_not_writable');
      expect(await codeOf(record.execute(bob, id, [{ kind: 'note', payload: {} }]))).toBe(
        'session_not_writable',
      );
      // The same in the database, as the application role.
      expect(await asApp(bob, `SELECT id FROM sessions WHERE id = $1`, [id])).toHaveLength(1);
      expect(await asApp(bob, `SELECT id FROM session_events WHERE session_id = $1`, [id])).toHaveLength(1);
      expect(await asApp(bob, `UPDATE sessions SET summary = 'x' WHERE id = $1 RETURNING id`, [id])).toEqual(
        [],
      );
      await expect(
        asApp(
          bob,
          `INSERT INTO session_events (tenant_id, session_id, user_id, kind, payload) VALUES ($1, $2, $3, 'note', '{}')`,
          [bob.tenantId, id, bob.userId],
        ),
      ).rejects.toThrow(/row-level security/);

      expect(await codeOf(get.execute(stranger, id))).toBe('session_not_found');
      expect(await codeOf(update.execute(stranger, id, { summary: 'x' }))).toBe('session_not_found');
      expect(await asApp(stranger, `SELECT id FROM sessions WHERE id = $1`, [id])).toEqual([]);
      expect((await get.execute(alice, id)).summary).toBeNull();
    });

    it('is changed only by an admin of the tenant, only for that tenant', async () => {
      const flag = `UPDATE tenants SET team_session_visibility = true WHERE id = $1 RETURNING id`;
      expect(await asApp(bob, flag, [bob.tenantId])).toEqual([]);
      expect(await asApp(admin, flag, [stranger.tenantId])).toEqual([]);
      await expect(
        asApp(admin, `UPDATE tenants SET slug = 'taken' WHERE id = $1`, [admin.tenantId]),
      ).rejects.toThrow(/permission denied/);
    });
  });

  describe('secrets and size caps', () => {
    let id: string;

    beforeAll(async () => {
      id = (await start.execute(alice, { agent: 'claude-code', project: 'caps' })).id;
    });

    it('stores payloads and summaries with secrets redacted, never in clear', async () => {
      const [a, b, c] = [fakeGithubToken(), fakeGithubToken(), fakeGithubToken()];
      await record.execute(alice, id, [
        { kind: 'prompt', payload: { text: `deploy with ${a} please` } },
        {
          kind: 'tool_call',
          payload: { tool: 'Bash', input: { command: `gh auth login --with-token ${b}` } },
        },
        { kind: 'observation', payload: { env: { password: 'hunter2-but-longer' } } },
      ]);
      await update.execute(alice, id, { summary: `used ${c} to deploy` });
      const stored = await raw<{ payload: unknown }>(
        `SELECT payload FROM session_events WHERE session_id = $1 ORDER BY id`,
        [id],
      );
      const text = JSON.stringify(stored);
      for (const secret of [a, b, c, 'hunter2-but-longer']) expect(text).not.toContain(secret);
      expect(stored).toEqual([
        { payload: { text: expect.stringMatching(/^deploy with \[REDACTED:[a-z_-]+\] please$/) } },
        { payload: { tool: 'Bash', input: { command: expect.stringContaining('[REDACTED:') } } },
        { payload: { env: { password: '[REDACTED:sensitive]' } } },
      ]);
      const [row] = await raw<{ summary: string }>(`SELECT summary FROM sessions WHERE id = $1`, [id]);
      expect(row.summary).not.toContain(c);
      const outbox = await raw<{ payload: unknown }>(
        `SELECT payload FROM outbox WHERE payload->>'sessionId' = $1`,
        [id],
      );
      for (const secret of [a, b]) expect(JSON.stringify(outbox)).not.toContain(secret);
    });

    it('refuses an event over its cap, a batch of too many events and a batch over its byte cap, storing none', async () => {
      const big = 'x'.repeat(SESSION_LIMITS.maxEventBytes);
      const note = (text: string) => ({ kind: 'note' as const, payload: { text } });
      expect(await codeOf(record.execute(alice, id, [note('fine'), note(big)]))).toBe('event_too_large');
      const many = Array.from({ length: SESSION_LIMITS.maxBatchEvents + 1 }, () => note('n'));
      expect(await codeOf(record.execute(alice, id, many))).toBe('event_batch_too_large');
      const heavy = Array.from({ length: 20 }, () => note('y'.repeat(SESSION_LIMITS.maxEventBytes - 100)));
      expect(await codeOf(record.execute(alice, id, heavy))).toBe('event_batch_too_large');
      expect((await get.execute(alice, id)).eventCounts.total).toBe(3);
    });
  });

  describe('timeline', () => {
    it('answers the events around the time a memory was made, or the newest ones', async () => {
      const id = (await start.execute(alice, { agent: 'claude-code', project: 'timeline' })).id;
      const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 0, minute)).toISOString();
      await record.execute(
        alice,
        id,
        Array.from({ length: 10 }, (_, i) => ({ kind: 'note' as const, payload: { i }, createdAt: at(i) })),
      );
      const memoryId = (await createMemory.execute(alice, newMemory(`timeline ${randomUUID()}`))).id;
      // The memory was made "now"; move it to minute 5 of the events' clock.
      await raw(`UPDATE memories SET created_at = $2 WHERE id = $1`, [memoryId, at(5)]);

      const around = await timeline.execute(alice, id, { around: memoryId, window: 2 });
      expect(around.around).toMatch(/^2030-01-01T00:05:00/);
      expect(around.events.map((e) => (e.payload as { i: number }).i)).toEqual([3, 4, 5, 6]);
      const newest = await timeline.execute(alice, id, { window: 3 });
      expect(newest.events.map((e) => (e.payload as { i: number }).i)).toEqual([7, 8, 9]);

      const bobsMemory = (
        await createMemory.execute(bob, newMemory(`private ${randomUUID()}`, { visibility: 'private' }))
      ).id;
      expect(await codeOf(timeline.execute(alice, id, { around: bobsMemory }))).toBe('memory_not_found');
    });
  });
});
