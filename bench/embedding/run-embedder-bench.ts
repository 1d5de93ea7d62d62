import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  loadModelById,
  loadUseLiteModel,
  type LoadedModel,
  type UseLiteRuntime,
} from '@app/embeddings/testing';
import { memorySample } from './memory-sample';

/**
 * Speed of one embedding model outside the service — the raw model floor: load time (first usable
 * embedder), single query embeds (one text per call, as recall does: p50, p95, queries/s) and
 * batches of 32 memories of 100–400 characters (as the worker does: p50 per batch, texts/s, and
 * CPU milliseconds per text, which stays comparable when other work shares the machine). Queries
 * are every eval query in bench/datasets; memories are 256 texts of 100–400 characters made from
 * the agent-memory corpus (memory-sample.ts).
 *
 *   npm run bench:embedder -- --model use-lite-512d --model glove-sif-100d [--models-dir ./models]
 *     [--runtime onnx --runtime tfjs] [--dtype fp32 --dtype q8] [--seconds 10]
 *
 * --runtime picks USE-lite's runtime (default: whichever it would use, see use-lite-runtime.ts);
 * --dtype the graph (q8 = onnx/model_quantized.onnx). TF.js has one graph: it runs once, as fp32
 * (TF.js is installed into .cache/tfjs first if the project has no copy: tfjs-reference.mjs).
 */
const { values } = parseArgs({
  options: {
    model: { type: 'string', multiple: true, default: ['glove-sif-100d'] },
    'models-dir': { type: 'string', default: './models' },
    runtime: { type: 'string', multiple: true, default: ['auto'] },
    dtype: { type: 'string', multiple: true, default: ['fp32'] },
    seconds: { type: 'string', default: '10' },
  },
});

const readTexts = (datasets: readonly string[], file: string) =>
  datasets.flatMap((dataset) =>
    readFileSync(resolve('bench/datasets', dataset, file), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => (JSON.parse(line) as { text: string }).text),
  );
const queries = readTexts(['agent-memory', 'team-conversations'], 'queries.jsonl');
const memories = memorySample(readTexts(['agent-memory'], 'corpus.jsonl'), {
  count: 256,
  minChars: 100,
  maxChars: 400,
});
const BATCH = 32;

interface Variant {
  readonly modelId: string;
  readonly runtime: UseLiteRuntime | 'auto';
  readonly dtype: 'fp32' | 'q8';
}

function variants(): Variant[] {
  const runtimes = values.runtime.map((runtime) => {
    if (runtime !== 'auto' && runtime !== 'onnx' && runtime !== 'tfjs')
      throw new Error(`--runtime ${runtime}?`);
    return runtime;
  });
  const dtypes = values.dtype.map((dtype) => {
    if (dtype !== 'fp32' && dtype !== 'q8') throw new Error(`--dtype ${dtype}?`);
    return dtype;
  });
  return values.model.flatMap((modelId) =>
    (modelId === 'use-lite-512d' ? runtimes : (['auto'] as const)).flatMap((runtime) =>
      (runtime === 'tfjs' ? (['fp32'] as const) : dtypes).map((dtype) => ({ modelId, runtime, dtype })),
    ),
  );
}

function load({ modelId, runtime, dtype }: Variant): Promise<LoadedModel> {
  if (runtime === 'tfjs') {
    execFileSync(process.execPath, ['scripts/embedding-model/tfjs-reference.mjs'], { stdio: 'ignore' });
  }
  const request = { modelId, modelsDir: resolve(values['models-dir']), allowRemote: false, dtype };
  return runtime === 'auto' ? loadModelById(request) : loadUseLiteModel(request, runtime);
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

async function measure(variant: Variant): Promise<Record<string, string | number>> {
  const startedAt = performance.now();
  const model = await load(variant);
  await model.embedBatch(['warm up']);
  const loadMs = performance.now() - startedAt;
  for (const query of queries.slice(0, 20)) await model.embedBatch([query]);

  const latencies: number[] = [];
  for (const query of queries) {
    const at = performance.now();
    await model.embedBatch([query]);
    latencies.push(performance.now() - at);
  }
  latencies.sort((a, b) => a - b);
  const queryMs = latencies.reduce((sum, ms) => sum + ms, 0);

  const budgetMs = Number(values.seconds) * 1000;
  const batchTimes: number[] = [];
  const cpuStart = process.cpuUsage();
  const throughputStart = performance.now();
  for (let i = 0; performance.now() - throughputStart < budgetMs; i += BATCH) {
    const batch = Array.from({ length: BATCH }, (_, k) => memories[(i + k) % memories.length]);
    const at = performance.now();
    await model.embedBatch(batch);
    batchTimes.push(performance.now() - at);
  }
  const seconds = (performance.now() - throughputStart) / 1000;
  const embedded = batchTimes.length * BATCH;
  const cpuPerText = cpuMs(cpuStart) / embedded;
  batchTimes.sort((a, b) => a - b);
  await model.dispose();
  return {
    model: variant.modelId,
    runtime: variant.runtime,
    dtype: variant.dtype,
    'load ms': Math.round(loadMs),
    'query p50 ms': Number(percentile(latencies, 0.5).toFixed(2)),
    'query p95 ms': Number(percentile(latencies, 0.95).toFixed(2)),
    'queries/s': Math.round((latencies.length * 1000) / queryMs),
    'batch-32 p50 ms': Number(percentile(batchTimes, 0.5).toFixed(1)),
    'memories/s': Math.round(embedded / seconds),
    'CPU ms/memory': Number(cpuPerText.toFixed(2)),
  };
}

async function main(): Promise<void> {
  process.stderr.write(
    `[bench] ${queries.length} queries; ${memories.length} memories of 100–400 chars in batches of ${BATCH}\n`,
  );
  const rows = [];
  for (const variant of variants()) rows.push(await measure(variant));
  console.table(rows);
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
