import type { Client } from 'pg';
import { type Principal } from '@app/tenancy';
import { type ImportMemoriesUseCase, type NewMemory } from '@app/memories';
import { indexInput as embeddingInput } from '@app/jobs';
import { toVectorLiteral } from '@app/embeddings';
import { type LoadedModel } from '@app/embeddings/testing';
import type { GeneratedMemory } from '../corpus/memory-generator';
import type { ServiceStack } from '../harness/service-stack';
import { waitUntilEmbedded } from './wait-for-embeddings';

export interface IndexThroughputResult {
  readonly memories: number;
  /** The API's write path (imports), for reference: rows, index state, outbox, audit. */
  readonly importPerSecond: number;
  /** Worker start → last embedding committed (model load and JIT warm-up included). */
  readonly coldDrainMs: number;
  /**
   * Steady worker rate: memories embedded after the first embedding write and up to the last one
   * (their transactions' start times), over that span, so worker start-up does not count. A batch
   * writes its rows with one timestamp, so the first batch is left out, not counted as instant.
   */
  readonly pipelinePerSecond: number;
  /** The same texts through the raw model in batches of the configured size, nothing else. */
  readonly rawPerSecond: number;
  readonly rawBatchSize: number;
  /**
   * The database's part of the floor: the same vectors inserted raw into memory_embeddings (schema
   * owner, one multi-row INSERT per job-sized batch, into the real HNSW index), per second.
   */
  readonly rawInsertPerSecond: number;
  readonly insertBatchSize: number;
}

export function toNewMemory(m: GeneratedMemory): NewMemory {
  return {
    content: m.content,
    category: m.category,
    tags: m.tags,
    expandedKeywords: m.expandedKeywords,
    importance: m.importance,
    project: m.project,
  };
}

/**
 * Worker embedding throughput through the real job path. The worker is stopped while the
 * memories are imported (one import per user, as agents import their notes), so a backlog builds
 * up: the API's relay queues the first `memory.index-batch` job and, while it waits, keeps the
 * following rows in the outbox to coalesce them; then a fresh worker drains both, running
 * IndexMemoriesUseCase for each batch. Measuring while importing would time
 * the write path instead (it is slower than the worker here). The reference is the raw model on
 * the same embedding inputs, in batches of EMBEDDING_BATCH_SIZE.
 */
export async function measureIndexThroughput(options: {
  stack: ServiceStack;
  importer: ImportMemoriesUseCase;
  principals: readonly Principal[];
  memories: readonly GeneratedMemory[];
  pg: Client;
  modelId: string;
  rawModel: LoadedModel;
  rawBatchSize: number;
  /** Memories per `memory.index-batch` job (the relay's OUTBOX_BATCH_SIZE). */
  insertBatchSize: number;
  timeoutMs: number;
}): Promise<IndexThroughputResult> {
  const byOwner = new Map<number, GeneratedMemory[]>();
  for (const m of options.memories) byOwner.set(m.owner, [...(byOwner.get(m.owner) ?? []), m]);
  const texts = options.memories.map(embeddingInput);
  const rawBefore = await rawEmbedMs(options.rawModel, texts, options.rawBatchSize);

  await options.stack.stopWorker();
  const importStarted = performance.now();
  // Only the memories this import created: one that repeats a memory already stored (the caller's
  // own text, or a teammate's of the same meaning) answers with that memory's id, which is indexed.
  const ids: number[] = [];
  const createdTexts: string[] = [];
  for (const [owner, items] of byOwner) {
    const stored = await options.importer.execute(options.principals[owner], items.map(toNewMemory));
    stored.forEach((memory, i) => {
      if (memory.duplicate) return;
      ids.push(memory.id);
      createdTexts.push(embeddingInput(items[i]));
    });
  }
  const importMs = performance.now() - importStarted;
  const insertMs = await rawInsertMs(options.pg, {
    modelId: options.modelId,
    ids,
    vectors: await embedAll(options.rawModel, createdTexts, options.rawBatchSize),
    batchSize: options.insertBatchSize,
  });

  const workerStarted = performance.now();
  await options.stack.startWorker();
  await waitUntilEmbedded(options.pg, { modelId: options.modelId, ids, timeoutMs: options.timeoutMs });
  const coldDrainMs = performance.now() - workerStarted;
  const { rows } = await options.pg.query<{ span_ms: number; after_first: number }>(
    `SELECT extract(epoch FROM max(created_at) - min(created_at)) * 1000 AS span_ms,
            count(*) FILTER (WHERE created_at > first.at)::int AS after_first
       FROM memory_embeddings,
            (SELECT min(created_at) AS at FROM memory_embeddings WHERE model_id = $1 AND memory_id = ANY($2::bigint[])) first
      WHERE model_id = $1 AND memory_id = ANY($2::bigint[])`,
    [options.modelId, ids],
  );
  const spanMs = Number(rows[0]?.span_ms ?? Number.NaN);

  // The raw rate is the model's capacity: the better of a run before and one after, so a
  // background hiccup (autovacuum, the relay) during one of them does not flatter the ratio.
  const rawMs = Math.min(rawBefore, await rawEmbedMs(options.rawModel, texts, options.rawBatchSize));
  return {
    memories: ids.length,
    importPerSecond: (ids.length / importMs) * 1000,
    coldDrainMs,
    pipelinePerSecond: ((rows[0]?.after_first ?? 0) / spanMs) * 1000,
    rawPerSecond: (texts.length / rawMs) * 1000,
    rawBatchSize: options.rawBatchSize,
    rawInsertPerSecond: (ids.length / insertMs) * 1000,
    insertBatchSize: options.insertBatchSize,
  };
}

/**
 * Inserts the memories' vectors as the schema owner, a batch per statement, in one transaction that
 * is rolled back: the rows never exist, but each insert went into the real HNSW graph (the rolled
 * back entries stay dead in the index until vacuum). Runs before the worker starts, so it inserts
 * exactly the rows the worker will.
 */
async function rawInsertMs(
  pg: Client,
  input: { modelId: string; ids: readonly number[]; vectors: readonly Float32Array[]; batchSize: number },
): Promise<number> {
  await pg.query('BEGIN');
  try {
    const started = performance.now();
    for (let i = 0; i < input.ids.length; i += input.batchSize) {
      const ids = input.ids.slice(i, i + input.batchSize);
      await pg.query(
        `INSERT INTO memory_embeddings (memory_id, model_id, tenant_id, owner_id, embedding, input_hash)
         SELECT m.id, $1, m.tenant_id, m.owner_id, v.embedding::vector, sha256(v.embedding::bytea)
           FROM unnest($2::bigint[], $3::text[]) AS v(memory_id, embedding)
           JOIN memories m ON m.id = v.memory_id`,
        [
          input.modelId,
          ids,
          input.vectors.slice(i, i + input.batchSize).map((v) => toVectorLiteral(v, v.length)),
        ],
      );
    }
    return performance.now() - started;
  } finally {
    await pg.query('ROLLBACK');
  }
}

async function embedAll(
  model: LoadedModel,
  texts: readonly string[],
  batchSize: number,
): Promise<Float32Array[]> {
  const vectors: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += batchSize)
    vectors.push(...(await model.embedBatch(texts.slice(i, i + batchSize))));
  return vectors;
}

/** Best of two passes: the tokenizer is JavaScript, and the JIT needs a pass or two to warm up. */
async function rawEmbedMs(model: LoadedModel, texts: readonly string[], batchSize: number): Promise<number> {
  let best = Infinity;
  for (let pass = 0; pass < 2; pass++) {
    const started = performance.now();
    for (let i = 0; i < texts.length; i += batchSize) await model.embedBatch(texts.slice(i, i + batchSize));
    best = Math.min(best, performance.now() - started);
  }
  return best;
}
