import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  CreateMemoryUseCase,
  DeleteMemoryUseCase,
  FoldMemoryUsageUseCase,
  PurgeMemoryUseCase,
  RestoreMemoryUseCase,
  UpdateMemoryUseCase,
} from '@app/memories';
import { MemoryReadRepository, MemoryUsageRepository, MemoryWriter } from '@app/memories/testing';
import { QuotaError, type Principal, type TenantQuotas } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWriterFor } from '../../../test/support/memory-writes';

const limits = { maxContentBytes: 4096, maxImportBatch: 10, maxListLimit: 100 };
const unlimited: TenantQuotas = { maxMemories: 0, maxMemoryBytes: 0, maxSessionsPerDay: 0 };
const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** Usage counters kept by triggers, and the quotas checked inside the write's own statement. */
describe('memory usage and quotas against real Postgres', () => {
  let db: TestDatabase;
  let repo: MemoryReadRepository;
  let writer: MemoryWriter;
  let create: CreateMemoryUseCase;
  let update: UpdateMemoryUseCase;
  let remove: DeleteMemoryUseCase;
  let restore: RestoreMemoryUseCase;
  let purge: PurgeMemoryUseCase;
  let fold: FoldMemoryUsageUseCase;

  /** A fresh tenant with one member whose key carries the given quotas. */
  const member = async (quotas: Partial<TenantQuotas> = {}): Promise<Principal> => {
    const tenant = await createTestTenant(db, `quota-${randomUUID().slice(0, 8)}`);
    return { ...(await memberPrincipal(tenant, 'alice')), quotas: { ...unlimited, ...quotas } };
  };
  const usage = (who: Principal) => db.tx.inTenant(who, (tx) => repo.usage(who, tx));
  /** The same numbers counted from the rows (as the schema owner). */
  const recount = async (who: Principal) => {
    const rows = (await db.dataSource.query(
      `SELECT count(*)::int AS memories, coalesce(sum(octet_length(content)), 0)::int AS bytes
         FROM memories WHERE tenant_id = $1 AND deleted_at IS NULL`,
      [who.tenantId],
    )) as Array<{ memories: number; bytes: number }>;
    return rows[0];
  };
  const rejection = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    );

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 6);
    repo = new MemoryReadRepository();
    writer = await memoryWriterFor(db.tx, limits);
    create = new CreateMemoryUseCase(writer);
    update = new UpdateMemoryUseCase(writer);
    remove = new DeleteMemoryUseCase(writer);
    restore = new RestoreMemoryUseCase(writer);
    purge = new PurgeMemoryUseCase(writer);
    fold = new FoldMemoryUsageUseCase(db.tx, new MemoryUsageRepository());
  });
  afterAll(async () => db?.close());

  it('counts live memories and their bytes through every kind of write, folded or not', async () => {
    const alice = await member();
    const texts = ['Deploys go through Argo CD', 'Größenangaben in Bytes: ü is two', 'third one'];
    const ids: number[] = [];
    for (const text of texts) ids.push((await create.execute(alice, newMemory(text))).id);
    expect(await usage(alice)).toEqual({ memories: 3, bytes: texts.reduce((n, t) => n + bytes(t), 0) });

    await update.execute(alice, ids[0], { content: 'Deploys go through Argo CD, after the canary passes' });
    await update.execute(alice, ids[1], { importance: 0.9 });
    await remove.execute(alice, ids[2]);
    expect(await usage(alice)).toEqual(await recount(alice));
    await restore.execute(alice, ids[2]);
    expect(await usage(alice)).toEqual(await recount(alice));
    await remove.execute(alice, ids[2]);
    await purge.execute(alice, ids[2]);
    expect(await usage(alice)).toEqual(await recount(alice));
    expect((await usage(alice)).memories).toBe(2);

    // Folding moves the deltas into the totals without changing the answer.
    const before = await usage(alice);
    expect(await fold.execute()).toBeGreaterThan(0);
    expect(await usage(alice)).toEqual(before);
    const pending = (await db.dataSource.query(
      `SELECT count(*)::int AS n FROM memory_usage_deltas WHERE tenant_id = $1`,
      [alice.tenantId],
    )) as Array<{ n: number }>;
    expect(pending[0].n).toBe(0);
  });

  it('refuses a memory past the count quota with 429 quota_exceeded, storing nothing', async () => {
    const alice = await member({ maxMemories: 2 });
    const first = await create.execute(alice, newMemory('first within quota'));
    await create.execute(alice, newMemory('second within quota'));
    const error = await rejection(create.execute(alice, newMemory('third, over quota')));
    expect(error).toBeInstanceOf(QuotaError);
    expect(error).toMatchObject({ code: 'quota_exceeded', kind: 'too_many_requests' });
    expect((error as Error).message).toMatch(/stores 2 of 2 memories/);
    expect(await recount(alice)).toMatchObject({ memories: 2 });
    // Storing content it already has answers the existing memory, quota or not.
    expect(await create.execute(alice, newMemory('first within quota'))).toMatchObject({ id: first.id });
    // Deleting one frees its place.
    await remove.execute(alice, first.id);
    await create.execute(alice, newMemory('third, now within quota'));
    expect(await recount(alice)).toMatchObject({ memories: 2 });
  });

  it('refuses content past the bytes quota with 413 storage_quota_exceeded, on store and on growing updates', async () => {
    const alice = await member({ maxMemoryBytes: 100 });
    const sixty = 'x'.repeat(60);
    const { id } = await create.execute(alice, newMemory(sixty));
    const error = await rejection(create.execute(alice, newMemory('y'.repeat(50))));
    expect(error).toMatchObject({ code: 'storage_quota_exceeded', kind: 'too_large' });
    expect((error as Error).message).toMatch(/hold 60 of 100 bytes and this write adds 50/);
    await create.execute(alice, newMemory('z'.repeat(40)));
    expect(await usage(alice)).toEqual({ memories: 2, bytes: 100 });

    const grown = await rejection(update.execute(alice, id, { content: 'x'.repeat(61) }));
    expect(grown).toMatchObject({ code: 'storage_quota_exceeded' });
    const stored = (await db.dataSource.query(`SELECT content FROM memories WHERE id = $1`, [id])) as Array<{
      content: string;
    }>;
    expect(stored[0].content).toBe(sixty);
    // Shrinking (and changing other fields) is never refused.
    await update.execute(alice, id, { content: 'x'.repeat(30), importance: 0.8 });
    expect(await usage(alice)).toEqual({ memories: 2, bytes: 70 });
  });

  it('answers usage for the caller’s own tenant only', async () => {
    const alice = await member();
    const stranger = await member();
    await create.execute(alice, newMemory('a tenant’s private number'));
    const error = await rejection(
      db.tx.inTenant(stranger, (tx) => tx.query(`SELECT * FROM memory_usage_totals($1)`, [alice.tenantId])),
    );
    expect(error).toMatchObject({ code: '42501' });
  });
});
