import { OutboxWriter } from '@app/jobs';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  CountMemoriesUseCase,
  CreateMemoryUseCase,
  DeleteMemoryUseCase,
  type NewMemory,
} from '@app/memories';
import { MemoryReadRepository } from '@app/memories/testing';
import { RecalledTextScreen, SecretDetector } from '@app/secrets';
import { deriveKeyEncryptionKey, LocalSecretStore } from '@app/secrets/testing';
import {
  presentStartupContext,
  StartSessionUseCase,
  StartupContextUseCase,
  UpdateSessionUseCase,
  type StartupContext,
} from '@app/sessions';
import { SessionRepository, SessionScreen, StartupContextRepository } from '@app/sessions/testing';
import { ALL_SCOPES, AuditWriter, type Principal } from '@app/tenancy';
import { createTenancyUseCases } from '@app/tenancy/testing';
import { createTestTenant, memberPrincipal, openTestDatabase, type TestDatabase } from '@app/testing';
import { memoryWriterFor } from '../../../test/support/memory-writes';
import { fakeGithubToken } from '../../../test/support/fake-secrets';

const limits = { maxContentBytes: 4096, maxImportBatch: 10, maxListLimit: 100 };
const BUDGETS = { defaultChars: 4000, maxChars: 32_000, defaultTokens: 8000, maxTokens: 8000 };

/** The session startup block (REST `GET /api/context/startup`, MCP `startup_context`) against real Postgres + RLS. */
describe('startup context', () => {
  let db: TestDatabase;
  let create: CreateMemoryUseCase;
  let remove: DeleteMemoryUseCase;
  let startup: StartupContextUseCase;
  let count: CountMemoriesUseCase;
  let startSession: StartSessionUseCase;
  let updateSession: UpdateSessionUseCase;
  let tenancy: ReturnType<typeof createTenancyUseCases>;

  const store = async (who: Principal, content: string, fields: Partial<NewMemory> = {}) =>
    (
      await create.execute(who, {
        content,
        category: 'facts',
        tags: [],
        expandedKeywords: '',
        importance: 0.5,
        project: null,
        visibility: 'team',
        ...fields,
      })
    ).id;
  /** An ended session with a summary, ending at `endedAt`. */
  const session = async (who: Principal, remote: string, summary: string, endedAt: string) => {
    const started = await startSession.execute(who, { agent: 'claude-code', gitRemote: remote });
    await updateSession.execute(who, started.id, { status: 'ended', summary, endedAt });
    return started.id;
  };
  const idsOf = (context: StartupContext) => ({
    important: context.sections.important.map((m) => m.id),
    decisions: context.sections.decisions.map((m) => m.id),
    sessions: context.sections.sessions.map((s) => s.id),
  });
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: { code?: string }) => error.code,
    );

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const repo = new MemoryReadRepository();
    const secrets = new LocalSecretStore(deriveKeyEncryptionKey(randomBytes(32).toString('hex')));
    const writer = await memoryWriterFor(db.tx, limits, secrets);
    create = new CreateMemoryUseCase(writer);
    remove = new DeleteMemoryUseCase(writer);
    const sessions = new SessionRepository();
    startup = new StartupContextUseCase(
      db.tx,
      new StartupContextRepository(),
      repo,
      sessions,
      new RecalledTextScreen(new SecretDetector()),
      BUDGETS,
    );
    count = new CountMemoriesUseCase(db.tx, repo);
    const screen = new SessionScreen(new SecretDetector());
    startSession = new StartSessionUseCase(db.tx, sessions, screen);
    updateSession = new UpdateSessionUseCase(db.tx, sessions, screen, new OutboxWriter(), new AuditWriter());
    tenancy = createTenancyUseCases(db.tx, { ttlMs: 0 });
  });
  afterAll(async () => db.close());

  describe('one project of a team', () => {
    const remote = 'git@github.com:Acme/Atlas.git';
    const atlas = 'github.com/acme/atlas';
    let alice: Principal;
    let bob: Principal;
    let admin: Principal;
    let stranger: Principal;
    const id: Record<string, number> = {};
    const sessionIds: Record<string, string> = {};

    beforeAll(async () => {
      const tenant = await createTestTenant(db, 'startup');
      alice = await memberPrincipal(tenant, 'alice');
      bob = await memberPrincipal(tenant, 'bob');
      admin = { ...(await memberPrincipal(tenant, 'carol')), scopes: ALL_SCOPES };
      stranger = await memberPrincipal(await createTestTenant(db, 'startup-other'), 'alice');

      id.rule = await store(alice, 'Never push to main without a review', { importance: 1 });
      id.helm = await store(bob, 'Atlas deploys with Helm', { project: atlas, importance: 0.9 });
      id.bobPrivate = await store(bob, 'Bob keeps this to himself', {
        project: atlas,
        importance: 1,
        visibility: 'private',
      });
      id.zephyr = await store(alice, 'Zephyr runs on Nomad', { project: 'zephyr', importance: 1 });
      id.low = await store(alice, 'Atlas has a README', { project: atlas, importance: 0.3 });
      id.gone = await store(alice, 'Atlas used Travis', { project: atlas, importance: 1 });
      await remove.execute(alice, id.gone);
      id.oldDecision = await store(alice, 'Atlas uses npm', { project: atlas, category: 'decisions' });
      id.correction = await store(alice, 'Atlas uses pnpm, not npm', {
        project: atlas,
        supersedes: id.oldDecision,
      });
      id.singular = await store(alice, 'Releases are cut on Tuesdays', {
        project: atlas,
        category: 'decision',
      });
      id.corrected = await store(alice, 'Tabs, not spaces, in Makefiles', { category: 'corrections' });
      // Important and a decision: listed once, under Important.
      id.both = await store(alice, 'Postgres 15 is the only supported database', {
        project: atlas,
        category: 'decisions',
        importance: 0.95,
      });
      await store(stranger, 'Another tenant: Atlas is written in Go', { project: atlas, importance: 1 });

      sessionIds.older = await session(alice, remote, 'Set up the Helm chart', '2030-01-01T10:00:00Z');
      sessionIds.newer = await session(alice, remote, 'Moved the build\nto pnpm', '2030-01-02T10:00:00Z');
      sessionIds.zephyr = await session(
        alice,
        'git@github.com:acme/zephyr.git',
        'Zephyr',
        '2030-01-03T10:00:00Z',
      );
      sessionIds.bobs = await session(bob, remote, 'Bob fixed CI', '2030-01-04T10:00:00Z');
      await startSession.execute(alice, { agent: 'cursor', gitRemote: remote }); // active: no summary yet
      await session(stranger, remote, 'Stranger session', '2030-01-05T10:00:00Z');
    });

    it('lists the important memories, then decisions and corrections, then session summaries, each memory once', async () => {
      const context = await startup.execute(alice, { project: remote });
      expect(context.project).toBe(atlas);
      expect(idsOf(context)).toEqual({
        important: [id.rule, id.both, id.helm],
        decisions: [id.corrected, id.singular, id.correction],
        sessions: [sessionIds.newer, sessionIds.older],
      });
      expect(context).toMatchObject({ truncated: false, omitted: 0, budget: 4000 });
      expect(context.sections.important[2]).toMatchObject({ owner: 'bob', project: atlas });
      const correction = context.sections.decisions.find((m) => m.id === id.correction);
      expect(correction).toMatchObject({ supersedes: [id.oldDecision], category: 'facts' });
      expect(context.sections.sessions[0]).toMatchObject({
        owner: 'alice',
        summary: 'Moved the build to pnpm',
      });

      const text = context.text;
      expect(text.startsWith(`# Startup context: project ${atlas}\n`)).toBe(true);
      const order = ['## Important', `#${id.rule} `, `#${id.helm} `, '## Decisions', `#${id.corrected} `];
      const positions = order.map((part) => text.indexOf(part));
      expect(positions.every((p) => p >= 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      expect(text).toContain(`replaces #${id.oldDecision}`);
      expect(text).toContain('## Recent sessions');
      expect(text).toContain('session · claude-code · by alice · 2030-01-02\n> Moved the build to pnpm\n');
      for (const hidden of [id.bobPrivate, id.zephyr, id.low, id.gone, id.oldDecision]) {
        expect(text).not.toContain(`#${hidden} `);
      }
      expect(text.match(new RegExp(`#${id.both} `, 'g'))).toHaveLength(1);
      expect(text).not.toContain('Another tenant');
      expect(text).not.toContain('Stranger session');
    });

    it('answers byte-identical blocks for the same data', async () => {
      const first = await startup.execute(alice, { project: atlas, budget: 1200 });
      const again = await startup.execute(alice, { project: 'https://github.com/acme/atlas', budget: 1200 });
      expect(again.text).toBe(first.text);
      expect(presentStartupContext(again)).toEqual(presentStartupContext(first));
    });

    it('stays within every budget, cutting whole items and saying how many were left out', async () => {
      const full = await startup.execute(alice, { project: atlas, budget: 32_000 });
      const total = Object.values(idsOf(full)).flat().length;
      for (const budget of [500, 650, 800, 1000, 1500]) {
        const context = await startup.execute(alice, { project: atlas, budget });
        expect(context.text.length, `budget ${budget}`).toBeLessThanOrEqual(budget);
        const shown = Object.values(idsOf(context)).flat().length;
        expect(shown + context.omitted).toBe(total);
        expect(context.truncated).toBe(context.omitted > 0);
        if (context.truncated) expect(context.text).toContain(`${context.omitted} more not shown`);
        // Kept items are the first of their section: a ranking is never reordered.
        for (const section of ['important', 'decisions', 'sessions'] as const) {
          const kept = idsOf(context)[section];
          expect(kept, `${section} at ${budget}`).toEqual(idsOf(full)[section].slice(0, kept.length));
        }
      }
      // Every section gets a share: a budget too small for everything still shows something of each
      // (the data frame included). Memory ids are global, so lines are longer in a long run: the
      // smallest such budget is searched for rather than fixed.
      let small: StartupContext | undefined;
      for (let budget = 500; budget < full.text.length && small === undefined; budget += 25) {
        const context = await startup.execute(alice, { project: atlas, budget });
        if (Object.values(idsOf(context)).every((ids) => ids.length > 0)) small = context;
      }
      expect(small?.truncated).toBe(true);
    });

    it('covers every project without one, and refuses a budget or project out of range', async () => {
      const everywhere = await startup.execute(alice, { budget: 32_000 });
      expect(everywhere.project).toBeNull();
      expect(everywhere.text).toMatch(
        new RegExp(`#${id.zephyr} · facts · by alice · \\d{4}-\\d{2}-\\d{2} · importance 1`),
      );
      expect(everywhere.text).toContain('project zephyr');
      expect(everywhere.sections.sessions.map((s) => s.id)).toContain(sessionIds.zephyr);

      expect(await codeOf(startup.execute(alice, { budget: 499 }))).toBe('startup_budget_out_of_range');
      expect(await codeOf(startup.execute(alice, { budget: 32_001 }))).toBe('startup_budget_out_of_range');
      expect(await codeOf(startup.execute(alice, { budget: 1000.5 }))).toBe('startup_budget_out_of_range');
      expect(await codeOf(startup.execute(alice, { project: 'p'.repeat(201) }))).toBe(
        'startup_project_too_long',
      );
    });

    it('shows teammates’ sessions only once the tenant turns team session visibility on; never another tenant’s', async () => {
      const sessionsOf = async (who: Principal) =>
        (await startup.execute(who, { project: atlas })).sections.sessions.map((s) => s.id);
      expect(await sessionsOf(alice)).not.toContain(sessionIds.bobs);
      expect(await sessionsOf(admin)).toContain(sessionIds.bobs);
      await tenancy.updateTenantSettings.execute(admin, { teamSessionVisibility: true });
      try {
        expect((await sessionsOf(alice))[0]).toBe(sessionIds.bobs);
        expect(await sessionsOf(stranger)).not.toContain(sessionIds.bobs);
        const strangerText = (await startup.execute(stranger, { project: atlas })).text;
        expect(strangerText).not.toContain('Bob fixed CI');
        expect(strangerText).not.toContain('Atlas deploys with Helm');
      } finally {
        await tenancy.updateTenantSettings.execute(admin, { teamSessionVisibility: false });
      }
      expect(await sessionsOf(alice)).not.toContain(sessionIds.bobs);
    });
  });

  it('shows a sensitive memory’s redacted text and how to reveal it, never the secret', async () => {
    const tenant = await createTestTenant(db, 'startup-secret');
    const dana = await memberPrincipal(tenant, 'dana');
    const token = fakeGithubToken();
    const sensitive = await store(dana, `Deploy with token ${token}`, { importance: 1 });
    const context = await startup.execute(dana);
    const [listed] = context.sections.important;
    expect(listed).toMatchObject({ id: sensitive, isSensitive: true });
    expect(listed.content).toMatch(/^Deploy with token \[REDACTED:[a-z_-]+\] \[SENSITIVE - use secret_get/);
    expect(context.text).toContain(listed.content);
    expect(JSON.stringify(presentStartupContext(context))).not.toContain(token);
  });

  it('answers a short block when nothing is stored yet', async () => {
    const empty = await memberPrincipal(await createTestTenant(db, 'startup-empty'), 'erin');
    const context = await startup.execute(empty, { project: 'atlas' });
    expect(context.text).toBe(
      '# Startup context: project atlas\n\nNothing stored yet: no important memories, decisions or session summaries.\n',
    );
    expect(context).toMatchObject({ truncated: false, omitted: 0 });
  });

  it('counts only the caller’s live memories, with filters', async () => {
    const tenant = await createTestTenant(db, 'count');
    const bob = await memberPrincipal(tenant, 'bob');
    const alice = await memberPrincipal(tenant, 'alice');
    await store(bob, 'counted in ci', { tags: ['ci'], project: 'atlas', visibility: 'private' });
    expect(await count.execute(bob)).toEqual({ total: 1 });
    expect(await count.execute(bob, { tag: 'ci' })).toEqual({ total: 1 });
    expect(await count.execute(bob, { project: 'atlas', category: 'facts' })).toEqual({ total: 1 });
    expect(await count.execute(alice, { tag: 'ci' })).toEqual({ total: 0 });
  });
});
