import type { Client } from 'pg';
import type { Principal } from '@app/tenancy';
import type { ImportMemoriesUseCase, NewMemory } from '@app/memories';
import { embeddingInput } from '@app/memories/domain/embedding-input';
import type { LoadedModel } from '@app/memories/adapters/embedding/transformers-runtime';
import type { GeneratedMemory } from '../corpus/memory-generator';
import { waitUntilEmbedded } from './wait-for-embeddings';

export interface IndexThroughputResult {
  readonly memories: number;
  /** Time the imports took to commit (the API's part). */
  readonly importMs: number;
  /** From the first import call until the last memory had its embedding row. */
  readonly endToEndMs: number;
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
 * Worker embedding throughput through the real path: imports (one per user, as agents import
 * their notes) write rows and outbox entries, the relay queues `memory.index` jobs, the worker
 * runs IndexMemoryUseCase for each (embedding in micro-batches), and the clock stops when the
 * last embedding row is committed. The reference is the raw model on the same embedding inputs.
 */
export async function measureIndexThroughput(options: {
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

  const started = performance.now();
  const ids: number[] = [];
  for (const [owner, items] of byOwner) {
    const stored = await options.importer.execute(options.principals[owner], items.map(toNewMemory));
    ids.push(...stored.map((s) => s.id));
  }
  const importMs = performance.now() - started;
  await waitUntilEmbedded(options.pg, { modelId: options.modelId, ids, timeoutMs: options.timeoutMs });
  const endToEndMs = performance.now() - started;

  // The raw rate is the model's capacity: take the better of a run before and one after, so a
  // background hiccup (autovacuum, the relay) during one of them does not flatter the ratio.
  const rawMs = Math.min(rawBefore, await rawEmbedMs(options.rawModel, texts, options.rawBatchSize));
  return {
    memories: ids.length,
    importMs,
    endToEndMs,
    pipelinePerSecond: (ids.length / endToEndMs) * 1000,
    rawPerSecond: (texts.length / rawMs) * 1000,
    rawBatchSize: options.rawBatchSize,
  };
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
