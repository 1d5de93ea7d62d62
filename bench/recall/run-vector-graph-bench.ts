import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadModelById } from '@app/embeddings/testing';
import { indexInput } from '@app/jobs';
import { TenantVectorIndex, UsearchGraph } from '@app/recall/testing';
import { generateMemories, generateQueries } from '../corpus/memory-generator';
import { percentile } from '../metrics';

/**
 * The vector leg's graph alone, at a size the full benchmark needs half an hour to load: one
 * tenant's `TenantVectorIndex` with its USearch graph, built in this process from the benchmark's
 * generated memories embedded as the worker embeds them (`indexInput`), then searched on unseen
 * queries for a caller who reads every memory, as recall searches it. Reports recall@k against the
 * exact nearest (ties at the k-th similarity count as found) and search p50/p95, the build's time
 * and the graph's size.
 *
 *   npm run bench:vector-graph -- [--size 1000000] [--queries 50] [--k 10] [--model glove-sif-100d]
 *     [--fetch 200 --fetch 400 …]
 *
 * --fetch N also measures the graph asked for N candidates, re-scored exactly and cut to k (the
 * graph's search list is at least N long: USearch widens it to the count asked for).
 */
const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '50' },
    k: { type: 'string', default: '10' },
    users: { type: 'string', default: '20' },
    model: { type: 'string', default: 'glove-sif-100d' },
    'models-dir': { type: 'string', default: './models' },
    /** Graph candidates re-scored per search, beside what recall asks for (each a separate measure). */
    fetch: { type: 'string', multiple: true, default: [] },
  },
});

const BATCH = 1_000;

async function main(): Promise<void> {
  const size = Number(values.size);
  const k = Number(values.k);
  const users = Number(values.users);
  const model = await loadModelById({
    modelId: values.model,
    modelsDir: resolve(values['models-dir']),
    allowRemote: false,
    dtype: 'fp32',
  });
  const index = new TenantVectorIndex(values.model, model.dimensions);
  const started = performance.now();
  let texts: string[] = [];
  let id = 0;
  const pool = new Float32Array(size * model.dimensions);
  const flush = async () => {
    for (const values of await model.embedBatch(texts)) {
      id += 1;
      index.apply({ id, seq: id, values });
      pool.set(unit(values), (id - 1) * model.dimensions);
    }
    texts = [];
  };
  for (const memory of generateMemories({ count: size, users, seed: 28 })) {
    texts.push(indexInput(memory));
    if (texts.length === BATCH) await flush();
  }
  await flush();
  const embedded = performance.now();
  const graph = new UsearchGraph(model.dimensions);
  index.attachGraph(graph);
  while (!index.buildStep(10_000));
  const built = performance.now();

  const queries = generateQueries({ count: Number(values.queries), users, seed: 2802 });
  const vectors = await model.embedBatch(queries.map((q) => q.text));
  const everyone = {
    accepts: () => true,
    forEachAccepted: (visit: (id: number) => void) => {
      for (let i = 1; i <= id; i += 1) visit(i);
    },
  };
  const times: number[] = [];
  let found = 0;
  const fetches = values.fetch.map(Number);
  const fetchTimes = fetches.map((): number[] => []);
  const fetchFound = fetches.map(() => 0);
  const dot = (a: Float32Array, at: number) => {
    let sum = 0;
    for (let d = 0; d < model.dimensions; d += 1) sum += a[d] * pool[at * model.dimensions + d];
    return sum;
  };
  for (const vector of vectors) {
    const t0 = performance.now();
    const answer = index.search({ vector, k, bound: id, ...everyone });
    times.push(performance.now() - t0);
    // The exact answer: every vector scored (bound 0 makes the index score exactly).
    const exact = index.search({ vector, k, bound: 0, ...everyone });
    if (answer === null || exact === null) throw new Error('graph not built');
    const kth = exact.hits[exact.hits.length - 1].distance;
    const exactIds = new Set(exact.hits.map((h) => h.memoryId));
    found += answer.hits.filter((h) => exactIds.has(h.memoryId) || h.distance <= kth + 1e-7).length;
    const query = unit(vector);
    fetches.forEach((count, f) => {
      const t1 = performance.now();
      const best = graph
        .search(query, count)
        .map((memoryId) => ({ memoryId, distance: 1 - dot(query, memoryId - 1) }))
        .sort((x, y) => x.distance - y.distance || x.memoryId - y.memoryId)
        .slice(0, k);
      fetchTimes[f].push(performance.now() - t1);
      fetchFound[f] += best.filter((h) => exactIds.has(h.memoryId) || h.distance <= kth + 1e-7).length;
    });
  }
  const fmt = (n: number) => n.toFixed(2);
  console.log(
    [
      `vector graph over ${index.size.toLocaleString('en')} memories (${values.model}), ${vectors.length} unseen queries, k ${k}`,
      `  embed ${((embedded - started) / 1000).toFixed(0)} s, graph build ${((built - embedded) / 1000).toFixed(0)} s; index ${(index.bytes / 2 ** 20).toFixed(0)} MiB`,
      `  search p50 / p95 ms: ${fmt(percentile(times, 50))} / ${fmt(percentile(times, 95))}; recall@${k} vs exact ${(found / (vectors.length * k)).toFixed(3)}`,
      ...fetches.map(
        (count, f) =>
          `  graph asked for ${count}: search p50 / p95 ms ${fmt(percentile(fetchTimes[f], 50))} / ${fmt(percentile(fetchTimes[f], 95))}; recall@${k} vs exact ${(fetchFound[f] / (vectors.length * k)).toFixed(3)}`,
      ),
    ].join('\n'),
  );
  await model.dispose();
}

function unit(values: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(values);
  const norm = Math.hypot(...out);
  if (norm > 0) for (let d = 0; d < out.length; d += 1) out[d] /= norm;
  return out;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
