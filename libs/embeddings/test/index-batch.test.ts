import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  JobExecutor,
  JobHandlerRegistry,
  JOB_DEFINITIONS,
  OutboxRelay,
  indexInputHash,
  type JobContext,
  type JobPayload,
  type JobRunEvent,
} from '@app/jobs';
import { BullMqJobConsumer, BullMqJobQueue } from '@app/jobs/testing';
import { IndexMemoriesUseCase, type MemoryIndexStep } from '@app/embeddings';
import {
  EmbeddingModelRepository,
  MemoryEmbeddingRepository,
  MemoryIndexStateRepository,
} from '@app/embeddings/testing';
import { CreateMemoryUseCase, type NewMemory, UpdateMemoryUseCase } from '@app/memories';
import { type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWriterFor } from '../../../test/support/memory-writes';
import { createScratchDatabase, type ScratchDatabase } from '../../../test/support/scratch-database';
import { waitFor } from '../../../test/support/wait-for';

const limits = { maxContentBytes: 4096, maxImportBatch: 10, maxListLimit: 100 };
const note = (content: string): NewMemory => newMemory(content, { tags: ['batch'] });
const INSTALLATION = '0123456789ab';
const noEmbedding: MemoryIndexStep = { embed: async () => ({ writes: [], failures: new Map() }) };

describe('memory.index-batch', () => {
  let db: TestDatabase;
  let create: CreateMemoryUseCase;
  let update: UpdateMemoryUseCase;
  let alice: Principal;

  const useCaseWith = (step: MemoryIndexStep) =>
    new IndexMemoriesUseCase(
      db.tx,
      new MemoryIndexStateRepository(),
      new EmbeddingModelRepository(),
      new MemoryEmbeddingRepository(),
      step,
    );

  const state = async (id: number) => {
    const { rows } = await db.tx.asSystem((tx) =>
      tx.query<{ status: string; wanted_hash: string; indexed_hash: string | null; times_indexed: number }>(
        `SELECT status, encode(wanted_hash, 'hex') AS wanted_hash, encode(indexed_hash, 'hex') AS indexed_hash,
                times_indexed
           FROM memory_index_state WHERE memory_id = $1`,
        [id],
      ),
    );
    return rows[0];
  };

  const request = (id: number, content: string): JobPayload<'memory.index'> => ({
    tenantId: alice.tenantId,
    userId: alice.userId,
    memoryId: String(id),
    contentHash: indexInputHash(note(content)),
  });

  // A database of its own: its relay claims every tenant's rows, and suites that run relays of their
  // own against the shared test database would take this suite's rows (and it theirs).
  let scratch: ScratchDatabase;
  beforeAll(async () => {
    scratch = await createScratchDatabase(inject('adminDatabaseUrl'), 'index_batch');
    db = await openTestDatabase(scratch.url, 10);
    const writer = await memoryWriterFor(db.tx, limits);
    create = new CreateMemoryUseCase(writer);
    update = new UpdateMemoryUseCase(writer);
    alice = await memberPrincipal(await createTestTenant(db, 'batch'), 'alice');
  });
  afterAll(async () => {
    await db?.close();
    await scratch?.drop();
  });

  it('coalesces a backlog of stores into a few batch jobs that index every memory once', async () => {
    const redisUrl = inject('redisUrl');
    const prefix = `test-batch-${randomUUID().slice(0, 8)}`;
    const useCase = useCaseWith(noEmbedding);
    const registry = new JobHandlerRegistry(['memory.index', 'memory.index-batch']);
    registry.register('memory.index', {
      handle: (data: unknown, context: JobContext) =>
        useCase.onJob(JOB_DEFINITIONS['memory.index'].parse(data), context),
    });
    registry.register('memory.index-batch', {
      handle: (data: unknown, context: JobContext) =>
        useCase.onBatch(JOB_DEFINITIONS['memory.index-batch'].parse(data), context),
    });
    const executor = new JobExecutor(registry);
    const runs: JobRunEvent[] = [];
    executor.subscribe((e) => runs.push(e));
    const queue = new BullMqJobQueue({ url: redisUrl, prefix });
    const relay = new OutboxRelay(db.tx, queue, {
      installationId: INSTALLATION,
      batchSize: 500,
      pollIntervalMs: 100,
    });
    const consumer = new BullMqJobConsumer({
      installationId: INSTALLATION,
      url: redisUrl,
      prefix,
      concurrency: 4,
      jobNames: registry.jobNames(),
      executor,
    });
    const inspect = new Queue('memory.index-batch', { connection: { url: redisUrl }, prefix });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 20; i += 1)
        ids.push(String((await create.execute(alice, note(`backlog ${i} ${randomUUID()}`))).id));
      // The relay finds the whole backlog in one pass (other suites' rows may ride along).
      await relay.drain();
      const queued = await inspect.getJobs(['waiting', 'delayed', 'prioritized']);
      const ours = queued.filter((job) =>
        (job.data as JobPayload<'memory.index-batch'>).memories.some((m) => ids.includes(m.memoryId)),
      );
      expect(ours.length).toBeGreaterThanOrEqual(1);
      expect(ours.length).toBeLessThanOrEqual(2);
      const carried = ours.flatMap((job) =>
        (job.data as JobPayload<'memory.index-batch'>).memories.map((m) => m.memoryId),
      );
      expect(carried.filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());

      await consumer.start();
      for (const id of ids) {
        await waitFor(`memory ${id} indexed`, async () =>
          (await state(Number(id)))?.status === 'indexed' ? true : undefined,
        );
      }
      for (const id of ids) expect(await state(Number(id))).toMatchObject({ times_indexed: 1 });
      const ourRuns = runs.filter((e) => ours.some((job) => job.id === e.context.jobId));
      expect(ourRuns.every((e) => e.outcome === 'completed')).toBe(true);
    } finally {
      await relay.stop();
      await consumer.close(5_000);
      await inspect.obliterate({ force: true });
      await inspect.close();
      await queue.close();
    }
  });

  it('does not write a vector of the old text when the memory is edited while the model runs', async () => {
    const before = `before the edit ${randomUUID()}`;
    const after = `after the edit ${randomUUID()}`;
    const { id } = await create.execute(alice, note(before));
    let edited = false;
    const editWhileEmbedding: MemoryIndexStep = {
      embed: async (models, memories) => {
        if (!edited) {
          edited = true;
          await update.execute(alice, id, { content: after });
        }
        return noEmbedding.embed(models, memories);
      },
    };
    const useCase = useCaseWith(editWhileEmbedding);

    const first = await useCase.execute([request(id, before)]);
    expect(first.get(String(id))).toBe('changed');
    const newHash = indexInputHash(note(after));
    expect(await state(id)).toMatchObject({ status: 'pending', wanted_hash: newHash, times_indexed: 0 });

    // The job the edit queued embeds the new text.
    const second = await useCase.execute([request(id, after)]);
    expect(second.get(String(id))).toBe('indexed');
    expect(await state(id)).toMatchObject({ status: 'indexed', indexed_hash: newHash, times_indexed: 1 });
  });

  it('indexes the changed memories of a batch once and reports the others, in one run', async () => {
    const live = await create.execute(alice, note(`live ${randomUUID()}`));
    const indexed = await create.execute(alice, note(`indexed already ${randomUUID()}`));
    const useCase = useCaseWith(noEmbedding);
    const indexedRequest = { ...request(indexed.id, ''), contentHash: (await state(indexed.id)).wanted_hash };
    await useCase.execute([indexedRequest]);
    const liveRequest = { ...request(live.id, ''), contentHash: (await state(live.id)).wanted_hash };
    const outcomes = await useCase.execute([
      liveRequest,
      indexedRequest,
      liveRequest,
      { ...liveRequest, memoryId: '999999999999' },
    ]);
    expect(Object.fromEntries(outcomes)).toEqual({
      [String(live.id)]: 'indexed',
      [String(indexed.id)]: 'already-indexed',
      '999999999999': 'memory-gone',
    });
    expect(await state(live.id)).toMatchObject({ status: 'indexed', times_indexed: 1 });
    expect(await state(indexed.id)).toMatchObject({ status: 'indexed', times_indexed: 1 });
  });
});
