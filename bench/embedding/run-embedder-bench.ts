import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadModelById } from '@app/embeddings/testing';

/**
 * Speed of one embedding model outside the service: load time (first usable embedder), query
 * embedding p50 (one short text per call, as recall does) and throughput in batches of 32
 * memory-sized texts (as the worker does). Texts come from the agent-memory corpus.
 *
 *   npm run bench:embedder -- --model use-lite-512d --model glove-sif-100d [--models-dir ./models] [--quantized] [--seconds 10]
 */
const { values } = parseArgs({
  options: {
    model: { type: 'string', multiple: true, default: ['glove-sif-100d'] },
    'models-dir': { type: 'string', default: './models' },
    quantized: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '10' },
  },
});

const corpus = readFileSync(resolve('bench/datasets/agent-memory/corpus.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => (JSON.parse(line) as { text: string }).text);
const queries = readFileSync(resolve('bench/datasets/agent-memory/queries.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => (JSON.parse(line) as { text: string }).text);

async function measure(modelId: string): Promise<Record<string, string | number>> {
  const startedAt = performance.now();
  const model = await loadModelById({
    modelId,
    modelsDir: resolve(values['models-dir']),
    allowRemote: false,
    dtype: values.quantized ? 'q8' : 'fp32',
  });
  await model.embedBatch(['warm up']);
  const loadMs = performance.now() - startedAt;

  const latencies: number[] = [];
  for (const query of queries) {
    const at = performance.now();
    await model.embedBatch([query]);
    latencies.push(performance.now() - at);
  }
  latencies.sort((a, b) => a - b);

  const budgetMs = Number(values.seconds) * 1000;
  const throughputStart = performance.now();
  let embedded = 0;
  for (let i = 0; performance.now() - throughputStart < budgetMs; i += 32) {
    const batch = Array.from({ length: 32 }, (_, k) => corpus[(i + k) % corpus.length]);
    await model.embedBatch(batch);
    embedded += batch.length;
  }
  const perSecond = embedded / ((performance.now() - throughputStart) / 1000);
  await model.dispose();
  return {
    model: modelId,
    dimensions: model.dimensions,
    'load + first embed ms': Math.round(loadMs),
    'query p50 ms': Number(latencies[Math.floor(latencies.length / 2)].toFixed(2)),
    'query p95 ms': Number(latencies[Math.floor(latencies.length * 0.95)].toFixed(2)),
    'texts/s (batch 32)': Math.round(perSecond),
  };
}

async function main(): Promise<void> {
  const rows = [];
  for (const modelId of values.model) rows.push(await measure(modelId));
  console.table(rows);
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
