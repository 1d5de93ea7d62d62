import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  CountMemoriesUseCase,
  CreateMemoryUseCase,
  DeleteMemoryUseCase,
  type NewMemory,
} from '@app/memories';
import { StartupContextUseCase } from '@app/sessions';
import { IdempotencyRepository } from '@app/memories/testing';
import { MemoryRepository } from '@app/memories/testing';
import { StartupContextRepository } from '@app/sessions/testing';
import { ALL_SCOPES, AuditWriter, type Principal } from '@app/tenancy';
import { createTestTenant, openTestDatabase, type TestDatabase, memberPrincipal } from '@app/testing';
import { memoryWriterFor } from '../../../test/support/memory-writes';

const limits = { maxContentBytes: 4096, maxImportBatch: 10, maxListLimit: 100 };

/** The queries behind the MCP `startup_context` and `memory_count` tools, against real Postgres + RLS. */
describe('startup context and count use cases', () => {
  let db: TestDatabase;
  let create: CreateMemoryUseCase;
  let remove: DeleteMemoryUseCase;
  let startup: StartupContextUseCase;
  let count: CountMemoriesUseCase;
  let alice: Principal;
  let bob: Principal;
  let admin: Principal;

  const store = async (who: Principal, content: string, fields: Partial<NewMemory> = {}) =>
    (
      await create.execute(who, {
        content,
        category: 'facts',
        tags: [],
        expandedKeywords: '',
        importance: 0.5,
        project: null,
        ...fields,
      })
    ).id;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const repo = new MemoryRepository();
    create = new CreateMemoryUseCase(
      db.tx,
      memoryWriterFor(db.tx, limits, undefined, repo),
      new IdempotencyRepository(),
    );
    remove = new DeleteMemoryUseCase(db.tx, repo, new AuditWriter());
    startup = new StartupContextUseCase(db.tx, new StartupContextRepository(), repo);
    count = new CountMemoriesUseCase(db.tx, repo);
    const tenant = await createTestTenant(db);
    const principal = (name: string) => memberPrincipal(tenant, name);
    alice = await principal('alice');
    bob = await principal('bob');
    admin = { ...(await principal('carol')), scopes: ALL_SCOPES };
  });
  afterAll(async () => db.close());

  it('lists the most important first and the newest of the rest, for a project plus project-less memories', async () => {
    const low = await store(alice, 'atlas low importance', { project: 'atlas', importance: 0.1 });
    const top = await store(alice, 'global rule', { importance: 1 });
    const high = await store(alice, 'atlas high importance', { project: 'atlas', importance: 0.9 });
    const other = await store(alice, 'zephyr only', { project: 'zephyr', importance: 1 });
    const gone = await store(alice, 'atlas deleted', { project: 'atlas', importance: 1 });
    await remove.execute(alice, gone);

    const context = await startup.execute(alice, { project: 'atlas', limit: 2 });
    expect(context.important.map((m) => m.id)).toEqual([top, high]);
    expect(context.recent.map((m) => m.id)).toEqual([low]);
    const everywhere = await startup.execute(alice, { limit: 10 });
    expect(everywhere.important.map((m) => m.id)).toEqual(expect.arrayContaining([other, top, high, low]));
    expect([...everywhere.important, ...everywhere.recent].map((m) => m.id)).not.toContain(gone);
  });

  it('shows another user’s team-visible memories but never their private ones', async () => {
    const shared = await store(bob, 'team convention: squash merges');
    const mine = await store(bob, 'bob private note');
    await db.tx.asSystem((tx) => tx.query(`UPDATE memories SET visibility = 'team' WHERE id = $1`, [shared]));
    const context = await startup.execute(alice, { limit: 50 });
    const ids = [...context.important, ...context.recent].map((m) => m.id);
    expect(ids).toContain(shared);
    expect(ids).not.toContain(mine);
  });

  it('shows memories shared with the caller directly or by tag, and every memory of the tenant to an admin', async () => {
    const direct = await store(bob, 'bob shares the runbook');
    const tagged = await store(bob, 'bob tags release notes', { tags: ['release'] });
    const hidden = await store(bob, 'bob keeps this one');
    await db.tx.inTenant(bob, async (tx) => {
      await tx.query(
        `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission) VALUES ($1, $2, $3, $4, 'read')`,
        [direct, bob.userId, alice.userId, bob.tenantId],
      );
      await tx.query(
        `INSERT INTO tag_shares (owner_id, tag, shared_with, tenant_id, permission) VALUES ($1, 'release', $2, $3, 'read')`,
        [bob.userId, alice.userId, bob.tenantId],
      );
    });
    const seen = async (who: Principal) => {
      const context = await startup.execute(who, { limit: 50 });
      return [...context.important, ...context.recent].map((m) => m.id);
    };
    const byAlice = await seen(alice);
    expect(byAlice).toEqual(expect.arrayContaining([direct, tagged]));
    expect(byAlice).not.toContain(hidden);
    expect(await seen(admin)).toEqual(expect.arrayContaining([direct, tagged, hidden]));
  });

  it('counts only the caller’s live memories, with filters', async () => {
    const before = (await count.execute(bob)).total;
    await store(bob, 'counted in ci', { tags: ['ci'], project: 'atlas' });
    expect((await count.execute(bob)).total).toBe(before + 1);
    expect(await count.execute(bob, { tag: 'ci' })).toEqual({ total: 1 });
    expect(await count.execute(bob, { project: 'atlas', category: 'facts' })).toEqual({ total: 1 });
    expect(await count.execute(alice, { tag: 'ci' })).toEqual({ total: 0 });
  });
});
