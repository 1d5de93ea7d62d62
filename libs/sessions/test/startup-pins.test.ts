import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CreateMemoryUseCase, PinMemoryUseCase, type NewMemory } from '@app/memories';
import { MemoryReadRepository, PinRepository } from '@app/memories/testing';
import { RecalledTextScreen, SecretDetector } from '@app/secrets';
import { deriveKeyEncryptionKey, LocalSecretStore } from '@app/secrets/testing';
import { STARTUP_REQUESTED_TAG, StartupContextUseCase } from '@app/sessions';
import { SessionRepository, StartupContextRepository } from '@app/sessions/testing';
import { ALL_SCOPES, AuditWriter, type Principal } from '@app/tenancy';
import { createTestTenant, memberPrincipal, openTestDatabase, type TestDatabase } from '@app/testing';
import { memoryWriterFor } from '../../../test/support/memory-writes';

const limits = { maxContentBytes: 4096, maxImportBatch: 10, maxListLimit: 100 };
const BUDGETS = { defaultChars: 8000, maxChars: 32_000, defaultTokens: 4000, maxTokens: 8000 };
const atlas = 'github.com/acme/atlas';

/** The pinned and requested sections of the startup context, against real Postgres + RLS. */
describe('startup context: pinned and requested memories', () => {
  let db: TestDatabase;
  let create: CreateMemoryUseCase;
  let pin: PinMemoryUseCase;
  let startup: StartupContextUseCase;
  let alice: Principal;
  let bob: Principal;
  let admin: Principal;
  const id: Record<string, number> = {};

  const store = async (who: Principal, content: string, fields: Partial<NewMemory> = {}) =>
    (
      await create.execute(who, {
        content,
        category: 'facts',
        tags: [],
        expandedKeywords: '',
        importance: 0.5,
        project: atlas,
        visibility: 'team',
        ...fields,
      })
    ).id;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const secrets = new LocalSecretStore(deriveKeyEncryptionKey(randomBytes(32).toString('hex')));
    create = new CreateMemoryUseCase(await memoryWriterFor(db.tx, limits, secrets));
    const reads = new MemoryReadRepository();
    pin = new PinMemoryUseCase(db.tx, reads, new PinRepository(), new AuditWriter());
    startup = new StartupContextUseCase(
      db.tx,
      new StartupContextRepository(),
      reads,
      new SessionRepository(),
      new RecalledTextScreen(new SecretDetector()),
      BUDGETS,
    );
    const tenant = await createTestTenant(db, 'startup-pins');
    alice = await memberPrincipal(tenant, 'alice');
    bob = await memberPrincipal(tenant, 'bob');
    admin = { ...(await memberPrincipal(tenant, 'root')), scopes: ALL_SCOPES };

    id.important = await store(alice, 'Atlas pages on-call for every 5xx spike', { importance: 1 });
    id.teamPin = await store(bob, 'Atlas deploys with helm 3', { importance: 0.3 });
    id.alicePin = await store(bob, 'Run make check before every push', { importance: 0.2, project: null });
    id.otherProject = await store(alice, 'Zephyr runs on Nomad', { project: 'github.com/acme/zephyr' });
    id.requested = await store(bob, 'The staging database is shared with QA', {
      tags: [STARTUP_REQUESTED_TAG, 'session-capture'],
      category: 'notes',
      importance: 0.6,
    });
    id.decision = await store(alice, 'Atlas uses pnpm', { category: 'decisions' });
    await pin.execute(admin, id.teamPin, 'team');
    await pin.execute(alice, id.alicePin, 'user');
    await pin.execute(alice, id.otherProject, 'user');
    // Also important and pinned: listed once, in the pinned section.
    await pin.execute(bob, id.important, 'user');
  });
  afterAll(async () => db?.close());

  it('lists the team’s pins, then the caller’s own, before every other section', async () => {
    const context = await startup.execute(alice, { project: atlas });
    expect(context.sections.pinned.map((m) => [m.id, m.pin])).toEqual([
      [id.teamPin, 'team'],
      [id.alicePin, 'user'],
    ]);
    expect(context.sections.requested.map((m) => m.id)).toEqual([id.requested]);
    expect(context.sections.important.map((m) => m.id)).toEqual([id.important]);
    expect(context.sections.decisions.map((m) => m.id)).toEqual([id.decision]);
    const text = context.text;
    expect(text.indexOf('## Pinned')).toBeLessThan(text.indexOf('## Asked to remember'));
    expect(text.indexOf('## Asked to remember')).toBeLessThan(text.indexOf('## Important'));
    expect(text).toContain(`#${id.teamPin} · facts · by bob`);
    expect(text).toContain('pinned for the team');
  });

  it('shows a personal pin to its owner only, and each memory once', async () => {
    const bobs = await startup.execute(bob, { project: atlas });
    expect(bobs.sections.pinned.map((m) => [m.id, m.pin])).toEqual([
      [id.teamPin, 'team'],
      [id.important, 'user'],
    ]);
    expect(bobs.sections.important).toEqual([]);
    const all = [...Object.values(bobs.sections)].flat().map((item) => item.id);
    expect(new Set(all).size).toBe(all.length);
  });

  it('keeps pinned memories when the token budget is small, and says what it left out', async () => {
    const full = await startup.execute(alice, { project: atlas });
    const tokens = full.estimatedTokens - 20;
    const context = await startup.execute(alice, { project: atlas, tokens });
    expect(context.estimatedTokens).toBeLessThanOrEqual(tokens);
    expect(context.sections.pinned.map((m) => m.id)).toEqual([id.teamPin, id.alicePin]);
    expect(context.truncated).toBe(true);
    const left = Object.values(context.leftOut).flat();
    expect(left.length).toBe(context.omitted);
    expect(context.text).toContain(`${context.omitted} more not shown to stay within the budget`);
    expect(context.text).toContain(`${tokens} tokens`);
    expect(context.leftOut.pinned).toEqual([]);
  });

  it('refuses a token budget out of range', async () => {
    const code = (tokens: number) =>
      startup.execute(alice, { project: atlas, tokens }).then(
        () => 'ok',
        (e: { code?: string }) => e.code,
      );
    expect(await code(149)).toBe('startup_budget_out_of_range');
    expect(await code(8001)).toBe('startup_budget_out_of_range');
    expect(await code(150)).toBe('ok');
  });
});
