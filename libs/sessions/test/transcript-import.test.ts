import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AdminJobRepository, GetJobUseCase, OutboxWriter, type JobPayload } from '@app/jobs';
import {
  GetSessionTimelineUseCase,
  GetSessionUseCase,
  ImportClaudeCodeTranscriptUseCase,
  ProcessImportedSessionUseCase,
  StartSessionUseCase,
  UpdateSessionUseCase,
  type TranscriptImport,
} from '@app/sessions';
import {
  SessionEventRepository,
  SessionImportRepository,
  SessionRepository,
  SessionScreen,
} from '@app/sessions/testing';
import { SecretDetector } from '@app/secrets';
import { MemoryReadRepository } from '@app/memories/testing';
import { AuditWriter, type Principal } from '@app/tenancy';
import { createTestTenant, memberPrincipal, openTestDatabase, type TestDatabase } from '@app/testing';
import { fakeGithubToken } from '../../../test/support/fake-secrets';

const FIXTURE = readFileSync(join(__dirname, 'fixtures/claude-code-transcript.jsonl'), 'utf8');

/** The fixture with a fresh session id (ids are global) and a freshly generated token in its first prompt. */
function transcript(sessionId = randomUUID(), token = fakeGithubToken()) {
  return {
    sessionId,
    token,
    text: FIXTURE.replaceAll('{{SESSION_ID}}', sessionId).replaceAll('{{GITHUB_TOKEN}}', token),
  };
}

/** A body in small chunks, as a network upload arrives. */
async function* chunked(text: string, size = 97) {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** A long transcript: `n` user prompts, one a line. */
function longTranscript(sessionId: string, n: number): string {
  const at = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      type: 'user',
      uuid: randomUUID(),
      sessionId,
      timestamp: at(i),
      message: { role: 'user', content: `step ${i}` },
    }),
  ).join('\n');
}

/** Transcript import against real Postgres with row-level security. */
describe('Claude Code transcript import', () => {
  let db: TestDatabase;
  let importer: ImportClaudeCodeTranscriptUseCase;
  let processImport: ProcessImportedSessionUseCase;
  let getSession: GetSessionUseCase;
  let timeline: GetSessionTimelineUseCase;
  let getJob: GetJobUseCase;
  let alice: Principal;
  let bob: Principal;
  let admin: Principal;
  let stranger: Principal;

  const raw = async <T>(sql: string, params: unknown[] = []) =>
    (await db.dataSource.query(sql, params)) as T[];
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: { code?: string }) => error.code,
    );
  const importAs = (
    who: Principal,
    text: string,
    extra: { project?: string; onProgress?: (n: number) => void } = {},
  ) => importer.execute(who, { body: chunked(text), ...extra });
  const runJob = (who: Principal, result: TranscriptImport) => {
    const payload: JobPayload<'sessions.import'> = {
      tenantId: who.tenantId,
      userId: who.userId,
      sessionId: result.sessionId,
      jobId: result.job?.id ?? '',
    };
    return processImport.execute(payload);
  };

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const sessions = new SessionRepository();
    const events = new SessionEventRepository();
    const jobs = new AdminJobRepository();
    const screen = new SessionScreen(new SecretDetector());
    const outbox = new OutboxWriter();
    importer = new ImportClaudeCodeTranscriptUseCase(
      db.tx,
      new StartSessionUseCase(db.tx, sessions, screen),
      new UpdateSessionUseCase(db.tx, sessions, screen, outbox, new AuditWriter()),
      new SessionImportRepository(),
      screen,
      jobs,
      outbox,
    );
    processImport = new ProcessImportedSessionUseCase(db.tx, jobs, new SessionImportRepository());
    getSession = new GetSessionUseCase(db.tx, sessions, events);
    timeline = new GetSessionTimelineUseCase(db.tx, sessions, events, new MemoryReadRepository());
    getJob = new GetJobUseCase(db.tx, jobs);
    const tenant = await createTestTenant(db);
    alice = await memberPrincipal(tenant, 'alice');
    bob = await memberPrincipal(tenant, 'bob');
    admin = { ...(await memberPrincipal(tenant, 'admin')), scopes: ['memories:read', 'admin'] };
    stranger = await memberPrincipal(await createTestTenant(db), 'alice');
  });
  afterAll(async () => db.close());

  describe('a realistic transcript', () => {
    const t = transcript();
    let result: TranscriptImport;

    beforeAll(async () => {
      result = await importAs(alice, t.text, { project: 'git@github.com:acme/atlas.git' });
    });

    it('stores an ended session with the transcript’s id, place, times and summary', async () => {
      expect(result).toMatchObject({
        sessionId: t.sessionId,
        events: 8,
        duplicates: 0,
        lines: 12,
        skipped: 2,
        ignored: 2,
        job: { kind: 'sessions.import', status: 'queued', createdBy: alice.userId },
      });
      expect(await getSession.execute(alice, t.sessionId)).toMatchObject({
        id: t.sessionId,
        agent: 'claude-code',
        project: 'github.com/acme/atlas',
        cwd: '/home/dev/atlas',
        gitBranch: 'feature/login',
        status: 'ended',
        startedAt: '2025-05-26T07:27:40.079000+00:00',
        endedAt: '2025-05-26T07:28:12.500000+00:00',
        summary: 'Switch the login flow to pnpm scripts',
        eventCounts: {
          byKind: { prompt: 2, tool_call: 2, observation: 4, note: 0, correction: 0 },
          total: 8,
        },
      });
    });

    it('keeps every entry’s time and order, and maps the blocks to events', async () => {
      const { events } = await timeline.execute(alice, t.sessionId, { window: 100 });
      expect(events.map((e) => [e.kind, e.createdAt])).toEqual([
        ['prompt', '2025-05-26T07:27:40.079000+00:00'],
        ['observation', '2025-05-26T07:27:42.579000+00:00'],
        ['tool_call', '2025-05-26T07:27:42.579000+00:00'],
        ['observation', '2025-05-26T07:27:45.600000+00:00'],
        ['tool_call', '2025-05-26T07:27:48.400000+00:00'],
        ['observation', '2025-05-26T07:27:48.960000+00:00'],
        ['prompt', '2025-05-26T07:28:10.000000+00:00'],
        ['observation', '2025-05-26T07:28:12.500000+00:00'],
      ]);
      expect(events[2].payload).toMatchObject({
        tool: 'Bash',
        input: { command: 'npm test -- login', description: 'Run the login test' },
        transcript_ref: '04d6794d-6350-4d37-abe4-f6f643fdf83d#2',
      });
      expect(events[3].payload).toMatchObject({ source: 'tool_result', is_error: true });
      expect(events[6].payload).toMatchObject({ text: 'No, use pnpm instead of npm in this repo' });
    });

    it('redacts the secret of a prompt before storage: the original is in no row', async () => {
      const rows = await raw<{ p: string }>(
        `SELECT payload::text AS p FROM session_events WHERE session_id = $1`,
        [t.sessionId],
      );
      expect(rows).toHaveLength(8);
      for (const row of rows) expect(row.p).not.toContain(t.token);
      expect(rows.some((row) => /Our deploy uses \[REDACTED:[a-z_-]+\] to push/.test(row.p))).toBe(true);
    });

    it('queues the follow-up job through the outbox, and the job records its progress', async () => {
      const outbox = await raw<{ payload: { jobId: string } }>(
        `SELECT payload FROM outbox WHERE job_name = 'sessions.import' AND payload->>'sessionId' = $1`,
        [t.sessionId],
      );
      expect(outbox.map((row) => row.payload.jobId)).toEqual([result.job?.id]);
      expect(await runJob(alice, result)).toBe('succeeded');
      expect(await getJob.execute(alice, result.job?.id ?? '')).toMatchObject({
        status: 'succeeded',
        progress: { total: 8, done: 8, failed: 0 },
      });
      expect(await getSession.execute(alice, t.sessionId)).toMatchObject({
        eventCounts: { total: 8, processed: 8 },
      });
      expect(await runJob(alice, result)).toBe('already-finished');
    });

    it('imports the same transcript again as nothing new, and a longer one with only its new lines', async () => {
      const again = await importAs(alice, t.text);
      expect(again).toMatchObject({ sessionId: t.sessionId, events: 0, duplicates: 8, job: null });
      const grown = `${t.text}${JSON.stringify({
        type: 'user',
        uuid: randomUUID(),
        sessionId: t.sessionId,
        timestamp: '2025-05-26T07:30:00.000Z',
        message: { role: 'user', content: 'one more thing' },
      })}\n`;
      const longer = await importAs(alice, grown);
      expect(longer).toMatchObject({ events: 1, duplicates: 8, job: { status: 'queued' } });
      expect(await getSession.execute(alice, t.sessionId)).toMatchObject({
        endedAt: '2025-05-26T07:30:00.000000+00:00',
        eventCounts: { total: 9, processed: 8 },
      });
    });

    it('shows the session and its job to nobody else: another user, another tenant (an admin reads both)', async () => {
      expect(await codeOf(getSession.execute(bob, t.sessionId))).toBe('session_not_found');
      expect(await codeOf(getSession.execute(stranger, t.sessionId))).toBe('session_not_found');
      expect(await codeOf(getJob.execute(bob, result.job?.id ?? ''))).toBe('job_not_found');
      expect(await codeOf(getJob.execute(stranger, result.job?.id ?? ''))).toBe('job_not_found');
      expect(await codeOf(getJob.execute(bob, 'not-a-uuid'))).toBe('job_not_found');
      expect(await getJob.execute(admin, result.job?.id ?? '')).toMatchObject({ id: result.job?.id });
      expect(await getSession.execute(admin, t.sessionId)).toMatchObject({ id: t.sessionId });
      // Someone else of the tenant importing the same transcript cannot write into it; another tenant
      // imports it as a session of its own.
      expect(await codeOf(importAs(bob, t.text))).toBe('session_id_taken');
      expect(await importAs(stranger, t.text)).toMatchObject({
        sessionId: t.sessionId,
        events: 8,
        duplicates: 0,
      });
      const [{ n }] = await raw<{ n: number }>(
        `SELECT count(*)::int AS n FROM session_events WHERE session_id = $1 AND tenant_id = $2`,
        [t.sessionId, alice.tenantId],
      );
      expect(n).toBe(9);
    });
  });

  it('refuses a body that is not a transcript, storing nothing', async () => {
    expect(await codeOf(importAs(alice, 'hello\nworld\n'))).toBe('not_a_transcript');
    expect(await codeOf(importAs(alice, ''))).toBe('not_a_transcript');
    expect(await codeOf(importAs(alice, '[{"type":"user"}]\n{"type":"summary","summary":"s"}'))).toBe(
      'not_a_transcript',
    );
  });

  it('stores a long transcript in batches, reporting progress, and processes it in steps', async () => {
    const sessionId = randomUUID();
    const progress: number[] = [];
    const result = await importAs(alice, longTranscript(sessionId, 1_200), {
      onProgress: (n) => progress.push(n),
    });
    expect(result).toMatchObject({ events: 1_200, lines: 1_200, skipped: 0 });
    expect(progress).toEqual([500, 1_000, 1_200]);
    expect(await runJob(alice, result)).toBe('succeeded');
    expect(await getJob.execute(alice, result.job?.id ?? '')).toMatchObject({
      progress: { total: 1_200, done: 1_200 },
    });
  });

  it('stores each line once when the same transcript is imported twice at the same time', async () => {
    const sessionId = randomUUID();
    const text = longTranscript(sessionId, 1_100);
    const results = await Promise.all([importAs(alice, text), importAs(alice, text)]);
    expect(results.map((r) => r.events + r.duplicates)).toEqual([1_100, 1_100]);
    expect(results[0].events + results[1].events).toBe(1_100);
    const [{ n }] = await raw<{ n: number }>(
      `SELECT count(*)::int AS n FROM session_events WHERE session_id = $1`,
      [sessionId],
    );
    expect(n).toBe(1_100);
  });
});
