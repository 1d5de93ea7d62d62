import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '@app/config';
import { IndexMemoriesUseCase, ReconcileIndexUseCase, RegisterConfiguredModelUseCase } from '@app/embeddings';
import {
  EmbedMemoriesStep,
  EmbeddingModelRepository,
  IndexBacklogMetrics,
  MemoryEmbeddingRepository,
  MemoryIndexStateRepository,
} from '@app/embeddings/testing';
import { OutboxWriter, type JobPayload } from '@app/jobs';
import { CreateMemoryUseCase, DeleteMemoryUseCase, RestoreMemoryUseCase } from '@app/memories';
import { type Principal } from '@app/tenancy';
import {
  createTestTenant,
  DeterministicEmbedderProvider,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWriterFor } from '../../../test/support/memory-writes';
import { createScratchDatabase, type ScratchDatabase } from '../../../test/support/scratch-database';

const MODEL = 'test-det-16d';
const limits = { maxContentBytes: 4096, maxImportBatch: 10, maxListLimit: 100 };

/**
 * The sweep and the backlog gauges against a database of their own: both read every tenant, so
 * the counts here are exact. No relay runs: a job "lost in Redis" is an outbox row marked
 * dispatched whose job never ran.
 */
describe('index reconciliation of deleted, expired and restored memories', () => {
  let scratch: ScratchDatabase;
  let db: TestDatabase;
  let alice: Principal;
  let create: CreateMemoryUseCase;
  let remove: DeleteMemoryUseCase;
  let restore: RestoreMemoryUseCase;
  let index: IndexMemoriesUseCase;
  const states = new MemoryIndexStateRepository();
  const embedders = new DeterministicEmbedderProvider(MODEL, { [MODEL]: 16 });

  /** A sweep with the shipped defaults, or the given settings. */
  const sweep = (env: Record<string, string> = {}) =>
    new ReconcileIndexUseCase(
      db.tx,
      states,
      new OutboxWriter(),
      loadConfig({ DATABASE_URL: scratch.url, LOG_LEVEL: 'warn', ...env }),
    );

  const sql = async <R extends object>(text: string, params: unknown[] = []): Promise<R[]> =>
    (await db.tx.asSystem((tx) => tx.query<R>(text, params))).rows;

  const store = async (label: string): Promise<string> =>
    String((await create.execute(alice, newMemory(`${label} ${randomUUID()}`))).id);

  /** The memories' jobs reached Redis and were lost there: dispatched, never run. */
  const loseJobs = (ids: readonly string[]) =>
    sql(
      `UPDATE outbox SET dispatched_at = now()
        WHERE job_name = 'memory.index' AND dispatched_at IS NULL AND payload->>'memoryId' = ANY($1::text[])`,
      [ids],
    );

  /** Makes the memories' index states look as if they had waited this many seconds. */
  const age = (ids: readonly string[], seconds: number) =>
    sql(
      `UPDATE memory_index_state SET updated_at = now() - make_interval(secs => $2)
        WHERE memory_id = ANY($1::bigint[])`,
      [ids, seconds],
    );

  const status = async (id: string) =>
    (await sql<{ status: string }>(`SELECT status FROM memory_index_state WHERE memory_id = $1`, [id]))[0]
      ?.status;

  /** `memory.index` jobs recorded for the memory and not yet handed to the queue. */
  const queuedJobs = async (id: string): Promise<JobPayload<'memory.index'>[]> =>
    (
      await sql<{ payload: JobPayload<'memory.index'> }>(
        `SELECT payload FROM outbox
          WHERE job_name = 'memory.index' AND dispatched_at IS NULL AND payload->>'memoryId' = $1`,
        [id],
      )
    ).map((r) => r.payload);

  /** What a Prometheus scrape of the backlog gauges reads now (a fresh registry: no cached read). */
  const scrape = async () => {
    const registry = new Registry();
    new IndexBacklogMetrics(db.tx, states, registry).onModuleInit();
    const text = await registry.metrics();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    return {
      pending: value('memsvc_index_pending'),
      oldestSeconds: value('memsvc_index_pending_oldest_seconds'),
    };
  };

  beforeAll(async () => {
    scratch = await createScratchDatabase(inject('adminDatabaseUrl'), 'index_reconcile');
    db = await openTestDatabase(scratch.url, 4);
    await new RegisterConfiguredModelUseCase(db.tx, embedders, new EmbeddingModelRepository()).execute();
    const writer = await memoryWriterFor(db.tx, limits);
    create = new CreateMemoryUseCase(writer);
    remove = new DeleteMemoryUseCase(writer);
    restore = new RestoreMemoryUseCase(writer);
    index = new IndexMemoriesUseCase(
      db.tx,
      states,
      new EmbeddingModelRepository(),
      new MemoryEmbeddingRepository(),
      new EmbedMemoriesStep(embedders),
    );
    alice = await memberPrincipal(await createTestTenant(db, 'reconcile'), 'alice');
  });

  afterAll(async () => {
    await db?.close();
    await scratch?.drop();
  });

  it('never re-queues a soft-deleted memory nor counts it as backlog, and indexes it once restored', async () => {
    const kept = await store('kept');
    const deleted = await store('deleted before its lost job ran');
    await loseJobs([kept, deleted]);
    await age([kept, deleted], 3_600);
    expect(await scrape()).toMatchObject({ pending: 2 });

    await remove.execute(alice, Number(deleted));
    // Out of the backlog at once, before any sweep has looked at it.
    const afterDelete = await scrape();
    expect(afterDelete.pending).toBe(1);
    expect(afterDelete.oldestSeconds).toBeGreaterThanOrEqual(3_600);

    await expect(sweep().execute()).resolves.toEqual({ requeued: 1, skipped: 1 });
    expect(await queuedJobs(kept)).toHaveLength(1);
    expect(await queuedJobs(deleted)).toHaveLength(0);
    expect(await status(deleted)).toBe('skipped');

    // However often the sweep comes back, the deleted memory gets no job.
    await loseJobs([kept]);
    await age([kept, deleted], 3_600);
    await expect(sweep().execute()).resolves.toEqual({ requeued: 1, skipped: 0 });
    expect(await queuedJobs(deleted)).toHaveLength(0);
    expect(await status(deleted)).toBe('skipped');

    // A restore wants the index again: pending, with a job, counted.
    await restore.execute(alice, Number(deleted));
    expect(await status(deleted)).toBe('pending');
    const [job] = await queuedJobs(deleted);
    expect(job).toMatchObject({ memoryId: deleted, tenantId: alice.tenantId, userId: alice.userId });
    expect(await scrape()).toMatchObject({ pending: 2 });

    const jobs = [job, ...(await queuedJobs(kept))];
    const outcomes = await index.execute(jobs);
    expect(Object.fromEntries(outcomes)).toEqual({ [deleted]: 'indexed', [kept]: 'indexed' });
    const vectors = await sql<{ model_id: string }>(
      `SELECT model_id FROM memory_embeddings WHERE memory_id = $1`,
      [deleted],
    );
    expect(vectors).toEqual([{ model_id: MODEL }]);
    expect(await scrape()).toEqual({ pending: 0, oldestSeconds: 0 });
  });

  it('neither re-queues nor counts a memory past its expiry that the expiry job has not deleted yet', async () => {
    const expired = await store('expired');
    await loseJobs([expired]);
    await age([expired], 3_600);
    expect(await scrape()).toMatchObject({ pending: 1 });

    await sql(`UPDATE memories SET expires_at = now() - interval '1 minute' WHERE id = $1`, [expired]);
    expect(await scrape()).toEqual({ pending: 0, oldestSeconds: 0 });
    await expect(sweep().execute()).resolves.toEqual({ requeued: 0, skipped: 0 });
    expect(await queuedJobs(expired)).toHaveLength(0);
  });

  it('after a queue loss re-queues every live memory pending since before the run, however young', async () => {
    const lost = await Promise.all([1, 2, 3, 4, 5].map((n) => store(`lost ${n}`)));
    const stillInOutbox = await store('not relayed yet');
    const deleted = await store('deleted');
    await loseJobs([...lost, deleted]);
    await remove.execute(alice, Number(deleted));

    // Seconds old: the scheduled sweep leaves them to their (lost) jobs.
    await expect(sweep().execute()).resolves.toEqual({ requeued: 0, skipped: 0 });

    // Batches of 2: the run goes on until none is left.
    const afterLoss = sweep({ INDEX_RECONCILE_BATCH: '2' });
    await expect(afterLoss.afterQueueLoss()).resolves.toBe(lost.length);
    for (const id of lost) expect(await queuedJobs(id)).toHaveLength(1);
    // Its own job still waits in the outbox: not a second one.
    expect(await queuedJobs(stillInOutbox)).toHaveLength(1);
    expect(await queuedJobs(deleted)).toHaveLength(0);

    // Claimed memories are not taken again by a second run while their new jobs wait.
    await expect(afterLoss.afterQueueLoss()).resolves.toBe(0);
  });
});
