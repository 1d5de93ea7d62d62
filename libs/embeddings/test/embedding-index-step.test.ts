import { EmbeddingsModule } from '@app/embeddings';
import { MemoriesModule } from '@app/memories';
import { SessionsModule } from '@app/sessions';
import { SyncModule } from '@app/sync';
import { WebhooksModule } from '@app/webhooks';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ConfigModule, loadConfig } from '@app/config';
import { JobsRuntimeModule } from '@app/jobs';
import { PersistenceModule } from '@app/persistence';
import { type JobPayload } from '@app/jobs';
import { EMBEDDER_PROVIDER, type EmbedderProvider } from '@app/embeddings';
import { type NewMemory } from '@app/memories';
import {
  EmbedMemoriesStep,
  EmbeddingModelRepository,
  MemoryEmbeddingRepository,
  MemoryIndexStateRepository,
} from '@app/embeddings/testing';
import { MemoryVectorRepository } from '@app/recall/testing';
import { IndexMemoriesUseCase } from '@app/embeddings';
import { RegisterConfiguredModelUseCase } from '@app/embeddings';
import { indexInput as embeddingInput, indexInputDigest as embeddingInputHash } from '@app/jobs';
import { hnswIndexName } from '@app/embeddings';
import { type Principal } from '@app/tenancy';
import { openTestDatabase } from '@app/testing';
import { DeterministicEmbedderProvider } from '@app/testing';
import { embeddingHarness, type EmbeddingHarness } from '../../../test/support/embedding-harness';
import { createScratchDatabase } from '../../../test/support/scratch-database';
import { waitFor } from '../../../test/support/wait-for';

const note = (content: string, extra: Partial<NewMemory> = {}): NewMemory => ({
  content,
  category: 'facts',
  tags: ['build', 'ci'],
  expandedKeywords: 'pipeline continuous integration',
  importance: 0.5,
  project: null,
  ...extra,
});

const parse = (text: string) => JSON.parse(text) as number[];

describe('embedding index step (deterministic test embedder)', () => {
  const MODEL = 'test-det-16d';
  const FILLING = 'test-det-24d';
  const embedders = new DeterministicEmbedderProvider(MODEL, { [MODEL]: 16, [FILLING]: 24 });
  let h: EmbeddingHarness;
  let alice: Principal;
  const embedded = (memoryId: number, models: number, hash?: string) =>
    waitFor(`memory ${memoryId} embedded`, async () => {
      const rows = await h.embeddingsOf(memoryId);
      return rows.length === models && (hash === undefined || rows.every((r) => r.input_hash === hash))
        ? rows
        : undefined;
    });

  beforeAll(async () => {
    h = await embeddingHarness('embed_step', { EMBEDDING_MODEL: MODEL }, embedders);
    alice = await h.principal('alice');
  });
  afterAll(async () => h?.close());

  it('registers EMBEDDING_MODEL at boot as the read model, with its partial HNSW index', async () => {
    const models = await h.db.tx.asSystem(async (tx) => {
      const repo = new EmbeddingModelRepository();
      return { active: await repo.findActive(tx), indexed: await repo.hasIndex(tx, MODEL) };
    });
    expect(models.active).toMatchObject({ id: MODEL, dimensions: 16, status: 'active' });
    expect(models.indexed).toBe(true);
  });

  it('embeds a stored memory through the memory.index job: content, keywords and tags', async () => {
    const input = note(`The deploy pipeline caches node_modules ${randomUUID()}`);
    const { id } = await h.create.execute(alice, input);
    const [row] = await embedded(id, 1);
    const text = embeddingInput(input);
    expect(text).toContain(input.content);
    expect(text).toContain('pipeline continuous integration');
    expect(text).toContain('build ci');
    expect(row).toMatchObject({
      model_id: MODEL,
      owner_id: alice.userId,
      input_hash: embeddingInputHash(text).toString('hex'),
    });
    const expected = [...embedders.embedder(MODEL).vector(text)];
    parse(row.embedding).forEach((x, i) => expect(x).toBeCloseTo(expected[i], 6));

    // The vector leg finds it with a query embedded by the same model.
    const search = new MemoryVectorRepository({ exactScanMaxRows: 20_000 });
    const hits = await h.db.tx.inTenant(alice, (tx) =>
      search.search(alice, tx, {
        modelId: MODEL,
        dimensions: 16,
        vector: embedders.embedder(MODEL).vector(text),
        k: 3,
      }),
    );
    expect(hits[0]).toMatchObject({ memoryId: id });
    expect(hits[0].distance).toBeCloseTo(0, 6);
  });

  it('re-embeds after an edit; a repeated job embeds nothing', async () => {
    const { id } = await h.create.execute(alice, note(`before the edit ${randomUUID()}`));
    const [before] = await embedded(id, 1);
    const content = `after the edit ${randomUUID()}`;
    await h.update.execute(alice, id, { content });
    const afterHash = embeddingInputHash(embeddingInput(note(content))).toString('hex');
    const [after] = await embedded(id, 1, afterHash);
    expect(after.embedding).not.toBe(before.embedding);

    const calls = embedders.embedder(MODEL).calls.length;
    const { rows } = await h.db.tx.asSystem((tx) =>
      tx.query<{ payload: JobPayload<'memory.index'> }>(
        `SELECT payload FROM outbox WHERE job_name = 'memory.index' AND payload->>'memoryId' = $1 ORDER BY id DESC LIMIT 1`,
        [String(id)],
      ),
    );
    const indexMemories = h.app.get(IndexMemoriesUseCase);
    const outcomes = await indexMemories.execute([rows[0].payload]);
    expect(outcomes.get(String(id))).toBe('already-indexed');
    expect(embedders.embedder(MODEL).calls.length).toBe(calls);
  });

  it('does not fail for deleted memories, and purging removes the vectors', async () => {
    const { id } = await h.create.execute(alice, note(`short-lived ${randomUUID()}`));
    await embedded(id, 1);
    await h.remove.execute(alice, id);
    const payload: JobPayload<'memory.index'> = {
      tenantId: alice.tenantId,
      userId: alice.userId,
      memoryId: String(id),
      contentHash: 'a'.repeat(64),
    };
    const outcomes = await h.app.get(IndexMemoriesUseCase).execute([payload]);
    expect(outcomes.get(String(id))).toBe('memory-gone');
    await h.purge.execute(alice, id);
    expect(await h.embeddingsOf(id)).toEqual([]);
  });

  it('never lets a vector of the old text overwrite the new one when an edit lands while the model runs', async () => {
    const { id } = await h.create.execute(alice, note(`old text ${randomUUID()}`));
    const [old] = await embedded(id, 1);
    await h.db.tx.asSystem((tx) =>
      tx.query(`UPDATE memory_index_state SET indexed_hash = NULL, status = 'pending' WHERE memory_id = $1`, [
        id,
      ]),
    );
    const content = `new text ${randomUUID()}`;
    const newHash = embeddingInputHash(embeddingInput(note(content))).toString('hex');
    const real = new EmbedMemoriesStep(embedders);
    // The job computes the old text's vector; meanwhile the edit commits and its own job embeds the new text.
    const slow = new IndexMemoriesUseCase(
      h.db.tx,
      new MemoryIndexStateRepository(),
      new EmbeddingModelRepository(),
      new MemoryEmbeddingRepository(),
      {
        embed: async (models, memories) => {
          const result = await real.embed(models, memories);
          await h.update.execute(alice, id, { content });
          await embedded(id, 1, newHash);
          return result;
        },
      },
    );
    const payload: JobPayload<'memory.index'> = {
      tenantId: alice.tenantId,
      userId: alice.userId,
      memoryId: String(id),
      contentHash: old.input_hash,
    };
    const outcomes = await slow.execute([payload]);
    expect(outcomes.get(String(id))).toBe('already-indexed');
    const [row] = await h.embeddingsOf(id);
    expect(row.input_hash).toBe(newHash);
    const expected = [...embedders.embedder(MODEL).vector(embeddingInput(note(content)))];
    parse(row.embedding).forEach((x, i) => expect(x).toBeCloseTo(expected[i], 6));
  });

  it('also embeds with a model being filled, and a failing filling model does not fail the job', async () => {
    await h.db.tx.asSystem(async (tx) => {
      const repo = new EmbeddingModelRepository();
      await repo.insert(tx, { id: FILLING, dimensions: 24, status: 'filling' });
      await repo.ensureIndex(tx, { id: FILLING, dimensions: 24 });
    });
    try {
      const both = await h.create.execute(alice, note(`two models ${randomUUID()}`));
      const rows = await embedded(both.id, 2);
      expect(rows.map((r) => [r.model_id, parse(r.embedding).length])).toEqual([
        [MODEL, 16],
        [FILLING, 24],
      ]);

      embedders.embedder(FILLING).failNext = 1;
      const one = await h.create.execute(alice, note(`filling model down ${randomUUID()}`));
      await waitFor('index state indexed', async () => {
        const { rows: state } = await h.db.tx.asSystem((tx) =>
          tx.query<{ status: string }>(`SELECT status FROM memory_index_state WHERE memory_id = $1`, [
            one.id,
          ]),
        );
        return state[0]?.status === 'indexed' ? true : undefined;
      });
      expect((await h.embeddingsOf(one.id)).map((r) => r.model_id)).toEqual([MODEL]);
    } finally {
      await h.db.tx.asSystem((tx) => new EmbeddingModelRepository().markRetired(tx, FILLING));
    }
  });
});

describe('embedding index step (real transformers.js adapter, glove-sif-100d)', () => {
  const MODEL = 'glove-sif-100d';
  const modelsDir = resolve(__dirname, '..', '..', '..', 'models');
  let h: EmbeddingHarness;

  beforeAll(async () => {
    // The install/test flow builds the offline model into ./models; a cached build returns at once.
    const build = spawnSync(
      process.execPath,
      ['scripts/build-embedding-model.mjs', '--models-dir', modelsDir, '--quiet'],
      { cwd: resolve(__dirname, '..', '..', '..'), encoding: 'utf8' },
    );
    if (build.status !== 0) throw new Error(`model build failed: ${build.stderr}`);
    h = await embeddingHarness('embed_real', { EMBEDDING_MODEL: MODEL, MODELS_DIR: modelsDir });
  }, 180_000);
  afterAll(async () => h?.close());

  it('embeds stored memories with the real model so a synonym query finds them', async () => {
    const alice = await h.principal('alice');
    const noise = { tags: [], expandedKeywords: '' };
    const target = await h.create.execute(alice, note('The physician prescribed a new medicine', noise));
    const other = await h.create.execute(alice, note('Quarterly revenue grew in Europe', noise));
    for (const id of [target.id, other.id]) {
      await waitFor(`memory ${id} embedded`, async () =>
        (await h.embeddingsOf(id)).length === 1 ? true : undefined,
      );
    }
    const [row] = await h.embeddingsOf(target.id);
    expect(row.model_id).toBe(MODEL);
    expect(parse(row.embedding)).toHaveLength(100);

    const embedder = await h.app.get<EmbedderProvider>(EMBEDDER_PROVIDER).get(MODEL);
    const [query] = await embedder.embed(['A doctor gave me a new medication']);
    const hits = await h.db.tx.inTenant(alice, (tx) =>
      new MemoryVectorRepository({ exactScanMaxRows: 20_000 }).search(alice, tx, {
        modelId: MODEL,
        dimensions: 100,
        vector: query,
        k: 2,
      }),
    );
    expect(hits.map((hit) => hit.memoryId)).toEqual([target.id, other.id]);
  });
});

describe('boot with an EMBEDDING_MODEL that cannot be loaded', () => {
  it('fails to start, naming the model and the folder it looked in', async () => {
    const modelsDir = resolve(__dirname, '..', '..', '..', 'models');
    const config = loadConfig({
      DATABASE_URL: inject('databaseUrl'),
      RUN_MIGRATIONS: 'false',
      LOG_LEVEL: 'warn',
      EMBEDDING_MODEL: 'no-such-model-here',
      MODELS_DIR: modelsDir,
    });
    const app = await Test.createTestingModule({
      imports: [
        ConfigModule.forRoot(config),
        PersistenceModule.forRoot({ applicationName: 'test-missing-model', migrate: false }),
        JobsRuntimeModule.forRoot({ role: 'worker' }),
        // Every module that declares a @HandlesJob method, as the worker composes them.
        EmbeddingsModule,
        MemoriesModule,
        SyncModule,
        WebhooksModule,
        SessionsModule,
      ],
    }).compile();
    const failure = await app.init().then(
      () => null,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    // A failed init makes Nest's close() rethrow; release the pool directly.
    await app.get(DataSource).destroy();
    expect(failure).toContain('no-such-model-here');
    expect(failure).toContain(modelsDir);
  });
});

describe('registering EMBEDDING_MODEL from several replicas at once', () => {
  it('activates it exactly once, creates one index, and leaves a later different model for reindex', async () => {
    const scratch = await createScratchDatabase(inject('adminDatabaseUrl'), 'register_race');
    const db = await openTestDatabase(scratch.url, 8);
    try {
      const replica = (model: string) =>
        new RegisterConfiguredModelUseCase(
          db.tx,
          new DeterministicEmbedderProvider(model, { [model]: 32 }),
          new EmbeddingModelRepository(),
        );
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => replica('race-32d').execute()));
      expect(outcomes.map((o) => o.outcome).sort()).toEqual([
        'activated',
        'active',
        'active',
        'active',
        'active',
        'active',
      ]);
      const { rows } = await db.tx.asSystem((tx) =>
        tx.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = 'memory_embeddings' AND indexname = $1`,
          [hnswIndexName('race-32d')],
        ),
      );
      expect(rows[0].n).toBe(1);

      // A replica configured with another model does not take over the read model.
      await expect(replica('other-32d').execute()).resolves.toMatchObject({
        outcome: 'not-registered',
        activeModelId: 'race-32d',
      });
      const models = await db.tx.asSystem((tx) =>
        tx.query<{ id: string }>(`SELECT id FROM embedding_models`),
      );
      expect(models.rows).toEqual([{ id: 'race-32d' }]);
    } finally {
      await db.close();
      await scratch.drop();
    }
  });
});
