import { EmbeddingsModule } from '@app/embeddings';
import { MemoriesModule } from '@app/memories';
import { SessionsModule } from '@app/sessions';
import { SyncModule } from '@app/sync';
import { WebhooksModule } from '@app/webhooks';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Test } from '@nestjs/testing';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { ConfigModule, loadConfig } from '@app/config';
import {
  JobExecutor,
  JobHandlerRegistry,
  JobsRuntimeModule,
  OutboxRelay,
  JOB_DEFINITIONS,
  type JobContext,
  type JobPayload,
  type JobRunEvent,
} from '@app/jobs';
import { BullMqJobConsumer, BullMqJobQueue } from '@app/jobs/testing';
import { CreateMemoryUseCase, DeleteMemoryUseCase, UpdateMemoryUseCase, type NewMemory } from '@app/memories';
import {
  EmbeddingModelRepository,
  MemoryEmbeddingRepository,
  MemoryIndexStateRepository,
} from '@app/embeddings/testing';
import { IndexMemoriesUseCase, type IndexMemoryOptions, type MemoryIndexStep } from '@app/embeddings';
import { PersistenceModule } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import {
  createTestTenant,
  openTestDatabase,
  type TestDatabase,
  newMemory,
  memberPrincipal,
} from '@app/testing';
import { waitFor } from '../../../test/support/wait-for';
import { SecretsModule } from '@app/secrets';
import { memoryWriterFor } from '../../../test/support/memory-writes';

const limits = { maxContentBytes: 4096, maxImportBatch: 10, maxListLimit: 100 };
const note = (content: string): NewMemory => newMemory(content, { tags: ['jobs'] });

interface IndexStateRow {
  status: string;
  wanted_hash: string;
  indexed_hash: string | null;
  attempts: number;
  times_indexed: number;
  last_error: string | null;
  indexed_at: Date | null;
}

/** What the jobs runtime registers for IndexMemoriesUseCase's @HandlesJob methods: parse, then call. */
const jobHandlers = (useCase: IndexMemoriesUseCase) => ({
  single: {
    handle: (data: unknown, context: JobContext) =>
      useCase.onJob(JOB_DEFINITIONS['memory.index'].parse(data), context),
  },
  batch: {
    handle: (data: unknown, context: JobContext) =>
      useCase.onBatch(JOB_DEFINITIONS['memory.index-batch'].parse(data), context),
  },
});

const registryFor = (useCase: IndexMemoriesUseCase) => {
  const registry = new JobHandlerRegistry(['memory.index', 'memory.index-batch']);
  const handlers = jobHandlers(useCase);
  registry.register('memory.index', handlers.single);
  registry.register('memory.index-batch', handlers.batch);
  registry.assertComplete();
  return registry;
};

/** A step that embeds nothing: the state machine alone. */
const noEmbedding: MemoryIndexStep = { embed: async () => ({ writes: [], failures: new Map() }) };

const useCaseWith = (db: TestDatabase, step: MemoryIndexStep) =>
  new IndexMemoriesUseCase(
    db.tx,
    new MemoryIndexStateRepository(),
    new EmbeddingModelRepository(),
    new MemoryEmbeddingRepository(),
    step,
  );

/** One memory's outcome of one run. */
const indexOne = async (
  useCase: IndexMemoriesUseCase,
  payload: JobPayload<'memory.index'>,
  options?: IndexMemoryOptions,
) => (await useCase.execute([payload], options)).get(payload.memoryId);

/** The installation id these hand-wired relays and consumers act for. */
const INSTALLATION = '0123456789ab';

describe('memory.index job', () => {
  let db: TestDatabase;
  let create: CreateMemoryUseCase;
  let update: UpdateMemoryUseCase;
  let remove: DeleteMemoryUseCase;
  let indexMemory: IndexMemoriesUseCase;
  let alice: Principal;
  let bob: Principal;

  const state = async (id: number): Promise<IndexStateRow | undefined> => {
    const { rows } = await db.tx.asSystem((tx) =>
      tx.query<IndexStateRow>(
        `SELECT status, encode(wanted_hash, 'hex') AS wanted_hash, encode(indexed_hash, 'hex') AS indexed_hash,
                attempts, times_indexed, last_error, indexed_at
           FROM memory_index_state WHERE memory_id = $1`,
        [id],
      ),
    );
    return rows[0];
  };

  /** The payload the write path put in the outbox for this memory (latest first). */
  const queuedPayload = async (id: number): Promise<JobPayload<'memory.index'>> => {
    const { rows } = await db.tx.asSystem((tx) =>
      tx.query<{ payload: JobPayload<'memory.index'> }>(
        `SELECT payload FROM outbox WHERE job_name = 'memory.index' AND payload->>'memoryId' = $1 ORDER BY id DESC LIMIT 1`,
        [String(id)],
      ),
    );
    return rows[0].payload;
  };

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 10);
    const writer = await memoryWriterFor(db.tx, limits);
    create = new CreateMemoryUseCase(writer);
    update = new UpdateMemoryUseCase(writer);
    remove = new DeleteMemoryUseCase(writer);
    // The state machine alone: a step that embeds nothing.
    indexMemory = useCaseWith(db, noEmbedding);
    const tenant = await createTestTenant(db, 'idx');
    const principal = (name: string) => memberPrincipal(tenant, name);
    alice = await principal('alice');
    bob = await principal('bob');
  });
  afterAll(async () => db.close());

  it('moves a new memory from pending to indexed, recording hash, attempts and time', async () => {
    const { id } = await create.execute(alice, note(`index me ${randomUUID()}`));
    const before = await state(id);
    expect(before).toMatchObject({ status: 'pending', indexed_hash: null, attempts: 0, times_indexed: 0 });

    const payload = await queuedPayload(id);
    expect(payload.contentHash).toBe(before?.wanted_hash);
    await expect(indexOne(indexMemory, payload)).resolves.toBe('indexed');

    const after = await state(id);
    expect(after).toMatchObject({ status: 'indexed', attempts: 1, times_indexed: 1, last_error: null });
    expect(after?.indexed_hash).toBe(before?.wanted_hash);
    expect(after?.indexed_at).toBeInstanceOf(Date);
  });

  it('treats a second delivery of the same job as a no-op', async () => {
    const { id } = await create.execute(alice, note(`deliver twice ${randomUUID()}`));
    const payload = await queuedPayload(id);
    await indexOne(indexMemory, payload);
    await expect(indexOne(indexMemory, payload)).resolves.toBe('already-indexed');
    expect(await state(id)).toMatchObject({ status: 'indexed', attempts: 1, times_indexed: 1 });
  });

  it('indexes once when several workers run the same memory at the same moment', async () => {
    const { id } = await create.execute(alice, note(`race ${randomUUID()}`));
    const payload = await queuedPayload(id);
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => indexOne(indexMemory, payload)));
    expect(outcomes.filter((o) => o === 'indexed')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'already-indexed')).toHaveLength(5);
    expect(await state(id)).toMatchObject({ status: 'indexed', times_indexed: 1, attempts: 1 });
  });

  it('re-indexes after an edit, and whichever of the two queued jobs runs first does the work', async () => {
    const { id } = await create.execute(alice, note(`before edit ${randomUUID()}`));
    const first = await queuedPayload(id);
    await indexOne(indexMemory, first);
    await update.execute(alice, id, { content: `after edit ${randomUUID()}` });
    const second = await queuedPayload(id);
    expect(second.contentHash).not.toBe(first.contentHash);
    expect(await state(id)).toMatchObject({
      status: 'pending',
      wanted_hash: second.contentHash,
      times_indexed: 1,
    });

    // A late redelivery of the old job indexes the current content; the new job then has nothing to do.
    await expect(indexOne(indexMemory, first)).resolves.toBe('indexed');
    await expect(indexOne(indexMemory, second)).resolves.toBe('already-indexed');
    const after = await state(id);
    expect(after).toMatchObject({ status: 'indexed', times_indexed: 2, indexed_hash: second.contentHash });
  });

  it('embeds nothing for a memory deleted before its job ran, and leaves it skipped, not pending', async () => {
    const { id } = await create.execute(alice, note(`short-lived ${randomUUID()}`));
    const payload = await queuedPayload(id);
    await remove.execute(alice, id);
    await expect(indexOne(indexMemory, payload)).resolves.toBe('memory-gone');
    expect(await state(id)).toMatchObject({ status: 'skipped', attempts: 0, times_indexed: 0 });
  });

  it('writes no vector for a memory deleted while its vector was computed, and leaves it skipped', async () => {
    const { id } = await create.execute(alice, note(`deleted mid-job ${randomUUID()}`));
    const payload = await queuedPayload(id);
    let embeddedTexts = 0;
    const deletingStep: MemoryIndexStep = {
      embed: async (models, memories) => {
        embeddedTexts += memories.length;
        await remove.execute(alice, id);
        return noEmbedding.embed(models, memories);
      },
    };
    await expect(indexOne(useCaseWith(db, deletingStep), payload)).resolves.toBe('memory-gone');
    expect(embeddedTexts).toBe(1);
    expect(await state(id)).toMatchObject({ status: 'skipped', indexed_hash: null, times_indexed: 0 });
  });

  it("cannot index or touch another user's memory, even with a forged payload", async () => {
    const { id } = await create.execute(alice, note(`alice only ${randomUUID()}`));
    const payload = await queuedPayload(id);
    const forged = { ...payload, userId: bob.userId };
    await expect(indexOne(indexMemory, forged)).resolves.toBe('memory-gone');
    expect(await state(id)).toMatchObject({ status: 'pending', attempts: 0, times_indexed: 0 });
  });

  it('records attempts and the last error on failure, marks failed after the last attempt, recovers later', async () => {
    const { id } = await create.execute(alice, note(`flaky ${randomUUID()}`));
    const payload = await queuedPayload(id);
    let failing = true;
    const step: MemoryIndexStep = {
      embed: async (models, memories) => {
        if (failing) throw new Error('embedding service unavailable');
        return noEmbedding.embed(models, memories);
      },
    };
    const withStep = useCaseWith(db, step);

    await expect(indexOne(withStep, payload)).rejects.toThrow('embedding service unavailable');
    expect(await state(id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      times_indexed: 0,
      last_error: 'embedding service unavailable',
    });

    await expect(indexOne(withStep, payload, { finalAttempt: true })).rejects.toThrow();
    expect(await state(id)).toMatchObject({ status: 'failed', attempts: 2, times_indexed: 0 });

    failing = false;
    await expect(indexOne(withStep, payload)).resolves.toBe('indexed');
    expect(await state(id)).toMatchObject({
      status: 'indexed',
      attempts: 3,
      times_indexed: 1,
      last_error: null,
    });
  });

  it('runs end to end through the relay, BullMQ and two competing workers, indexing each memory once', async () => {
    const redisUrl = inject('redisUrl');
    const prefix = `test-index-${randomUUID().slice(0, 8)}`;
    const registry = registryFor(indexMemory);
    const executor = new JobExecutor(registry);
    const runs: JobRunEvent[] = [];
    executor.subscribe((e) => runs.push(e));
    const queue = new BullMqJobQueue({ url: redisUrl, prefix });
    const workers = [1, 2].map(
      (n) =>
        new BullMqJobConsumer({
          installationId: INSTALLATION,
          url: redisUrl,
          prefix,
          concurrency: 4,
          jobNames: registry.jobNames(),
          executor,
          connectionName: `${prefix}-w${n}`,
        }),
    );
    const relay = new OutboxRelay(db.tx, queue, {
      installationId: INSTALLATION,
      batchSize: 50,
      pollIntervalMs: 100,
    });
    const inspect = new Queue('memory.index', { connection: { url: redisUrl }, prefix });
    try {
      await Promise.all(workers.map((w) => w.start()));
      await relay.start();
      const ids: number[] = [];
      for (let i = 0; i < 12; i += 1)
        ids.push((await create.execute(alice, note(`pipeline ${i} ${randomUUID()}`))).id);
      // At-least-once delivery: the same job arriving again under another id must change nothing.
      const duplicates = await Promise.all(ids.map(async (id) => ({ id, payload: await queuedPayload(id) })));
      await queue.add(
        duplicates.map(({ id, payload }) => ({ name: 'memory.index', jobId: `dup-${id}`, payload })),
      );

      for (const id of ids) {
        await waitFor(`memory ${id} indexed`, async () =>
          (await state(id))?.status === 'indexed' ? true : undefined,
        );
      }
      await waitFor('duplicate jobs to finish', async () => {
        const counts = await inspect.getJobCounts('completed', 'active', 'waiting', 'failed');
        return counts.completed >= ids.length ? counts : undefined;
      });
      for (const id of ids)
        expect(await state(id)).toMatchObject({ status: 'indexed', times_indexed: 1, attempts: 1 });
      const duplicateRuns = runs.filter((e) => e.context.jobId.startsWith('dup-'));
      expect(duplicateRuns).toHaveLength(ids.length);
      expect(duplicateRuns.every((e) => e.outcome === 'completed')).toBe(true);
    } finally {
      await relay.stop();
      await Promise.all(workers.map((w) => w.close(5_000)));
      await inspect.obliterate({ force: true });
      await inspect.close();
      await queue.close();
    }
  });

  it('lets an active job finish when the BullMQ consumer is closed (graceful drain)', async () => {
    const redisUrl = inject('redisUrl');
    const prefix = `test-drain-${randomUUID().slice(0, 8)}`;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slowStep: MemoryIndexStep = {
      embed: async (models, memories) => {
        started();
        await new Promise((r) => setTimeout(r, 1_000));
        return noEmbedding.embed(models, memories);
      },
    };
    const registry = registryFor(useCaseWith(db, slowStep));
    const consumer = new BullMqJobConsumer({
      installationId: INSTALLATION,
      url: redisUrl,
      prefix,
      concurrency: 1,
      jobNames: registry.jobNames(),
      executor: new JobExecutor(registry),
    });
    const queue = new BullMqJobQueue({ url: redisUrl, prefix });
    const inspect = new Queue('memory.index', { connection: { url: redisUrl }, prefix });
    try {
      const { id } = await create.execute(alice, note(`slow ${randomUUID()}`));
      await consumer.start();
      await queue.add([{ name: 'memory.index', jobId: `drain-${id}`, payload: await queuedPayload(id) }]);
      await running;
      await consumer.close(10_000);
      expect(await state(id)).toMatchObject({ status: 'indexed', times_indexed: 1 });
      expect(await (await inspect.getJob(`drain-${id}`))?.getState()).toBe('completed');
    } finally {
      await consumer.close(0);
      await inspect.obliterate({ force: true });
      await inspect.close();
      await queue.close();
    }
  });

  it('runs the same handlers in-process when there is no Redis (embedded wiring)', async () => {
    const config = loadConfig({
      DATABASE_URL: inject('databaseUrl'),
      OUTBOX_POLL_INTERVAL_MS: '50',
      RUN_MIGRATIONS: 'false',
      LOG_LEVEL: 'warn',
    });
    const moduleRef = await Test.createTestingModule({
      imports: [
        ConfigModule.forRoot(config),
        PersistenceModule.forRoot({ applicationName: 'test-embedded-jobs', migrate: false }),
        JobsRuntimeModule.forRoot({ role: 'api' }),
        // Every module that declares a @HandlesJob method, as the worker composes them.
        EmbeddingsModule,
        MemoriesModule,
        SyncModule,
        WebhooksModule,
        SessionsModule,
      ],
    }).compile();
    await moduleRef.init();
    try {
      const { id } = await create.execute(alice, note(`in-process ${randomUUID()}`));
      const indexed = await waitFor('in-process indexing', async () => {
        const s = await state(id);
        return s?.status === 'indexed' ? s : undefined;
      });
      expect(indexed).toMatchObject({ times_indexed: 1, attempts: 1 });
    } finally {
      await moduleRef.close();
    }
  });

  it('refuses to start a consumer whose handlers are missing', async () => {
    const config = loadConfig({
      DATABASE_URL: inject('databaseUrl'),
      RUN_MIGRATIONS: 'false',
      LOG_LEVEL: 'warn',
    });
    const moduleRef = await Test.createTestingModule({
      imports: [
        ConfigModule.forRoot(config),
        PersistenceModule.forRoot({ applicationName: 'test-missing-handlers', migrate: false }),
        JobsRuntimeModule.forRoot({ role: 'worker' }),
        SecretsModule,
      ],
    }).compile();
    await expect(moduleRef.init()).rejects.toThrow(/no handler for job "memory.index"/);
    // A failed init makes Nest's close() rethrow; release the pool directly.
    await moduleRef.get(DataSource).destroy();
  });
});
