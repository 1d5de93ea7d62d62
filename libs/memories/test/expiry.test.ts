import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  CreateMemoryUseCase,
  ExpireMemoriesUseCase,
  GetMemoryUseCase,
  ListMemoriesUseCase,
  storeMemorySchema,
} from '@app/memories';
import { MemoryReadRepository, MemoryWriteRepository } from '@app/memories/testing';
import { AuditWriter, type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWriterFor } from '../../../test/support/memory-writes';
import { waitFor } from '../../../test/support/wait-for';

const limits = { maxContentBytes: 4096, maxImportBatch: 100, maxListLimit: 100 };

describe('memory expiry', () => {
  let db: TestDatabase;
  let alice: Principal;
  let create: CreateMemoryUseCase;
  let list: ListMemoriesUseCase;
  let get: GetMemoryUseCase;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    alice = await memberPrincipal(await createTestTenant(db, 'expiry'), 'alice');
    const repo = new MemoryReadRepository();
    const writer = await memoryWriterFor(db.tx, limits, undefined, {
      defaultVisibility: 'private',
      ttlByCategory: { scratch: 1_200 },
    });
    create = new CreateMemoryUseCase(writer);
    list = new ListMemoriesUseCase(db.tx, repo, limits);
    get = new GetMemoryUseCase(db.tx, repo);
  });

  afterAll(async () => db?.close());

  it('leaves every read the moment a memory expires, and the job then soft-deletes it', async () => {
    const scratch = await create.execute(alice, newMemory('build cache is warm', { category: 'scratch' }));
    const explicit = await create.execute(
      alice,
      newMemory('staging is down today', { expiresAt: new Date(Date.now() + 1_200) }),
    );
    const kept = await create.execute(alice, newMemory('we deploy with Helm'));
    const ids = () => list.execute(alice, { limit: 100 }).then((page) => page.memories.map((m) => m.id));
    expect(await ids()).toEqual(expect.arrayContaining([scratch.id, explicit.id, kept.id]));
    expect((await get.execute(alice, scratch.id)).expiresAt).not.toBeNull();
    expect((await get.execute(alice, kept.id)).expiresAt).toBeNull();

    // Both lifetimes are 1.2 s from their store; wait until the later one has passed.
    await waitFor(
      'expiry',
      async () => {
        const listed = await ids();
        return listed.includes(scratch.id) || listed.includes(explicit.id) ? undefined : true;
      },
      5_000,
    );
    const after = await ids();
    expect(after).not.toContain(scratch.id);
    expect(after).not.toContain(explicit.id);
    expect(after).toContain(kept.id);
    await expect(get.execute(alice, explicit.id)).rejects.toMatchObject({ code: 'memory_not_found' });

    expect(
      await new ExpireMemoriesUseCase(db.tx, new MemoryWriteRepository(), new AuditWriter()).execute(),
    ).toBeGreaterThanOrEqual(2);
    const { rows } = await db.tx.asSystem((tx) =>
      tx.query<{ id: string; deleted: boolean }>(
        `SELECT id::text AS id, deleted_at IS NOT NULL AS deleted FROM memories WHERE id = ANY($1::bigint[]) ORDER BY id`,
        [[scratch.id, explicit.id, kept.id]],
      ),
    );
    expect(rows.map((r) => r.deleted)).toEqual([true, true, false]);
  });

  it('refuses an expiry in the past instead of storing an already gone memory', () => {
    const parsed = storeMemorySchema.safeParse({ content: 'x', expires_at: '2001-01-01T00:00:00Z' });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain('expires_at must be in the future');
  });
});
