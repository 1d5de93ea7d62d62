import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { GetAdminJobUseCase, type AdminJob } from '@app/jobs';
import {
  EMBEDDER_PROVIDER,
  hnswIndexName,
  QueryEmbedder,
  StartReindexUseCase,
  type EmbedderProvider,
} from '@app/embeddings';
import { EmbeddingModelRepository, QueryEmbeddingCache } from '@app/embeddings/testing';
import { MemoryVectorRepository } from '@app/recall/testing';
import { newMemory } from '@app/testing';
import { type Principal } from '@app/tenancy';
import { embeddingHarness, type EmbeddingHarness } from '../../../test/support/embedding-harness';
import { waitFor } from '../../../test/support/wait-for';

/**
 * An installation embedded with the previous default (glove-sif-100d) moves to the shipped default
 * with real models through the existing reindex job: vector search keeps answering from the old
 * model while the new one fills, then the read model switches, dimensions and index included.
 */
const OLD = 'glove-sif-100d';
const NEW = loadConfig({ DATABASE_URL: 'postgres://unused' }).embeddings.model;
const root = resolve(__dirname, '..', '..', '..');
const modelsDir = resolve(root, 'models');

const TARGET = 'The physician prescribed a new medicine';
const QUERY = 'A doctor gave me a new medication';
const OTHERS = [
  'Quarterly revenue grew in Europe',
  'The cafeteria serves pasta on Mondays',
  'We decided to use PostgreSQL for storage',
  'Kubernetes pods crash with OOMKilled',
  'The release train leaves every second Thursday',
  'Sam owns the billing service on-call rotation',
];

describe(`switching the default embedding model (${OLD} → ${NEW})`, () => {
  let h: EmbeddingHarness;
  let admin: Principal;
  let alice: Principal;
  let target: number;

  /** Alice's vector-only top hits for QUERY with whatever model is the read model now. */
  const search = async () => {
    const queries = new QueryEmbedder(
      h.db.tx,
      new EmbeddingModelRepository(),
      new QueryEmbeddingCache(0),
      h.app.get<EmbedderProvider>(EMBEDDER_PROVIDER),
    );
    const query = await queries.embed(QUERY);
    if (!query) throw new Error('the query has no vector');
    const hits = await h.db.tx.inTenant(alice, (tx) =>
      new MemoryVectorRepository({ exactScanMaxRows: 20_000 }).search(alice, tx, { ...query, k: 3 }),
    );
    return { model: query.modelId, dimensions: query.vector.length, top: hits[0]?.memoryId };
  };
  const registry = () =>
    h.db.tx.asSystem(async (tx) => {
      const { rows } = await tx.query<{ id: string; status: string }>(
        `SELECT id, status FROM embedding_models ORDER BY id`,
      );
      return Object.fromEntries(rows.map((r) => [r.id, r.status]));
    });

  beforeAll(async () => {
    // The install/test flow builds the previous default into ./models; a cached build returns at once.
    const build = spawnSync(
      process.execPath,
      ['scripts/build-embedding-model.mjs', '--models-dir', modelsDir, '--quiet'],
      { cwd: root, encoding: 'utf8' },
    );
    if (build.status !== 0) throw new Error(`model build failed: ${build.stderr}`);
    h = await embeddingHarness('default_switch', { EMBEDDING_MODEL: OLD, MODELS_DIR: modelsDir });
    admin = await h.principal('admin', true);
    alice = await h.principal('alice');
    const noise = { tags: [], expandedKeywords: '' };
    target = (await h.create.execute(alice, newMemory(TARGET, noise))).id;
    const ids = [target];
    for (const text of OTHERS) ids.push((await h.create.execute(alice, newMemory(text, noise))).id);
    for (const id of ids) {
      await waitFor(`memory ${id} embedded`, async () =>
        (await h.embeddingsOf(id)).length === 1 ? true : undefined,
      );
    }
  }, 180_000);
  afterAll(async () => h?.close());

  it('ships a different default than the model this installation was embedded with', () => {
    expect(NEW).not.toBe(OLD);
  });

  it('re-embeds through the reindex job while search keeps answering, then switches', async () => {
    expect(await registry()).toEqual({ [OLD]: 'active' });
    expect(await search()).toEqual({ model: OLD, dimensions: 100, top: target });

    const started = await h.app.get(StartReindexUseCase).execute(admin, { model: NEW });
    let job: AdminJob = started;
    const answers: Awaited<ReturnType<typeof search>>[] = [];
    while (job.status !== 'succeeded' && job.status !== 'failed') {
      answers.push(await search());
      job = await h.app.get(GetAdminJobUseCase).execute(admin, started.id);
    }
    expect(job).toMatchObject({ status: 'succeeded', error: null });
    expect(job.progress.failed).toBe(0);
    // Every search while the job ran found the memory, with one of the two models (no downtime).
    for (const answer of answers) expect(answer.top).toBe(target);

    expect(await registry()).toEqual({ [OLD]: 'retired', [NEW]: 'active' });
    const { dimensions } = await h.app.get<EmbedderProvider>(EMBEDDER_PROVIDER).get(NEW);
    expect(await search()).toEqual({ model: NEW, dimensions, top: target });
    const rows = await h.embeddingsOf(target);
    expect(rows.map((row) => row.model_id).sort()).toEqual([OLD, NEW].sort());
    const { rows: indexes } = await h.db.tx.asSystem((tx) =>
      tx.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE indexname = $1`, [
        hnswIndexName(NEW),
      ]),
    );
    // The new model's partial HNSW index casts to its own dimension.
    expect(indexes[0]?.indexdef).toContain(`vector(${dimensions})`);
  });
});
