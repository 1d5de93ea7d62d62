import type { Client } from 'pg';
import { type Principal } from '@app/tenancy';
import { type ImportMemoriesUseCase, type NewMemory } from '@app/memories';
import { indexInput as embeddingInput } from '@app/jobs';
import { type LoadedModel } from '@app/embeddings/testing';
import type { GeneratedMemory } from '../corpus/memory-generator';
import type { ServiceStack } from '../harness/service-stack';
import { sleep, waitUntilEmbedded } from './wait-for-embeddings';

export interface IndexThroughputResult {
  readonly memories: number;
  /** The API's write path (imports), for reference: rows, index state, outbox, audit. */
  readonly importPerSecond: number;
  /** Worker start → last embedding committed (model load and JIT warm-up included). */
  readonly coldDrainMs: number;
  /**
   * Steady worker rate: memories embedded between the first and the last embedding row (their
   * transactions' start times), so worker start-up does not count.
   */
  readonly pipelinePerSecond: number;
  /** The same texts through the raw model in batches of the configured size, nothing else. */
  readonly rawPerSecond: number;
  readonly rawBatchSize: number;
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
 * memories are imported (one import per user, as agents import their notes), so the outbox relay
 * queues a backlog of `memory.index` jobs; then a fresh worker drains it, running
 * IndexMemoryUseCase with the embedding step for each job. Measuring while importing would time
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
  timeoutMs: number;
}): Promise<IndexThroughputResult> {
  const byOwner = new Map<number, GeneratedMemory[]>();
  for (const m of options.memories) byOwner.set(m.owner, [...(byOwner.get(m.owner) ?? []), m]);
  const texts = options.memories.map(embeddingInput);
  const rawBefore = await rawEmbedMs(options.rawModel, texts, options.rawBatchSize);

  await options.stack.stopWorker();
  const importStarted = performance.now();
  const ids: number[] = [];
  for (const [owner, items] of byOwner) {
    const stored = await options.importer.execute(options.principals[owner], items.map(toNewMemory));
    ids.push(...stored.map((s) => s.id));
  }
  const importMs = performance.now() - importStarted;
  await waitForOutboxDispatched(options.pg, options.timeoutMs);

  const workerStarted = performance.now();
  await options.stack.startWorker();
  await waitUntilEmbedded(options.pg, { modelId: options.modelId, ids, timeoutMs: options.timeoutMs });
  const coldDrainMs = performance.now() - workerStarted;
  const { rows } = await options.pg.query<{ span_ms: number }>(
    `SELECT extract(epoch FROM max(created_at) - min(created_at)) * 1000 AS span_ms
       FROM memory_embeddings WHERE model_id = $1 AND memory_id = ANY($2::bigint[])`,
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
    pipelinePerSecond: ((ids.length - 1) / spanMs) * 1000,
    rawPerSecond: (texts.length / rawMs) * 1000,
    rawBatchSize: options.rawBatchSize,
  };
}

/** The relay has handed every outbox row to the queue (the backlog is in Redis, not Postgres). */
async function waitForOutboxDispatched(pg: Client, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const { rows } = await pg.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox WHERE dispatched_at IS NULL`,
    );
    if ((rows[0]?.n ?? 0) === 0) return;
    if (performance.now() > deadline) throw new Error(`outbox still has ${rows[0]?.n} undispatched rows`);
    await sleep(50);
  }
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
