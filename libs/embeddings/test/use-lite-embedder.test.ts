import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransformersEmbedderProvider, type TransformersEmbedder } from '@app/embeddings/testing';
import { SentencePieceTokenizer } from '../src/adapters/embedding/use-lite/sentencepiece-tokenizer';
import { useLiteModelFolder } from '../src/adapters/embedding/use-lite/use-lite-runtime';
import { resolveTfjsModules } from '../src/adapters/embedding/use-lite/use-lite-thread';
import { ensureTfjsReference } from './support/tfjs-reference';

// Universal Sentence Encoder lite through the provider, on each of its runtimes: with its ONNX
// build in MODELS_DIR it runs on onnxruntime; with an empty MODELS_DIR it falls back to the TF.js
// graph read from node_modules (TF.js itself installed on demand into .cache/tfjs). No model
// weights are downloaded.

const root = resolve(__dirname, '../../..');
const MODEL = 'use-lite-512d';
const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i], 0);

describe.each([
  { runtime: 'onnx', built: true },
  { runtime: 'tfjs', built: false },
])('USE-lite embedder (use-lite-512d) on $runtime', ({ runtime, built }) => {
  const modelsDir = mkdtempSync(join(tmpdir(), 'use-lite-models-'));
  const provider = new TransformersEmbedderProvider({
    defaultModelId: MODEL,
    modelsDir,
    allowRemote: false,
    quantized: false,
    batchSize: 32,
    batchWaitMs: 2,
  });
  let embedder: TransformersEmbedder;

  beforeAll(async () => {
    if (built) {
      const build = spawnSync(
        process.execPath,
        ['scripts/build-embedding-model.mjs', '--model', MODEL, '--models-dir', modelsDir, '--quiet'],
        { cwd: root, encoding: 'utf8' },
      );
      if (build.status !== 0) throw new Error(`model build failed (${build.status}): ${build.stderr}`);
    } else {
      ensureTfjsReference();
    }
    provider.assertAvailable();
    embedder = await provider.get(MODEL);
  }, 120_000);

  afterAll(async () => {
    await provider.onModuleDestroy();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  it('tokenises like the reference SentencePiece implementation the model was published with', () => {
    const folder = useLiteModelFolder();
    if (!folder) throw new Error('the USE-lite package is not installed');
    const vocabulary = JSON.parse(readFileSync(join(folder, 'vocab.json'), 'utf8')) as [string, number][];
    const tokenizer = new SentencePieceTokenizer(vocabulary);
    // Ids produced by @tensorflow-models/universal-sentence-encoder 1.3.3's tokenizer.
    expect(tokenizer.encode('Hello world, the Kubernetes pods crash')).toEqual([
      341, 4125, 311, 8, 9, 4626, 949, 1557, 112, 610, 29, 7, 3228,
    ]);
    expect(tokenizer.encode('')).toEqual([]);
    expect(tokenizer.encode('a b c d e', 3)).toHaveLength(3);
  });

  it('returns 512-d unit vectors, one per text, in input order, whatever the batching', async () => {
    // Varied lengths and more texts than one graph run: the adapter sorts and splits internally.
    const texts = Array.from(
      { length: 40 },
      (_, i) =>
        `note ${i}: ${'we moved the deploy window again '.repeat((i * 7) % 5)}${i % 3 === 0 ? 'Postgres' : 'Friday'}`,
    );
    const together = await embedder.embed(texts);
    const alone: Float32Array[] = [];
    // One at a time, so the micro-batcher cannot merge them.
    for (const text of texts) alone.push((await embedder.embed([text]))[0]);
    expect(embedder.dimensions).toBe(512);
    expect(together).toHaveLength(texts.length);
    together.forEach((vector, i) => {
      expect(vector).toHaveLength(512);
      expect(dot(vector, vector)).toBeCloseTo(1, 4);
      // Same text, batched with others or alone: the same vector, so none was swapped.
      expect(dot(vector, alone[i])).toBeGreaterThan(0.9999);
    });
    // The texts differ, so a mix-up would show: each vector is closest to its own text's.
    expect(dot(together[1], alone[2])).toBeLessThan(0.9999);
  });

  it('is deterministic', async () => {
    const [first] = await embedder.embed(['The deploy failed because the migration timed out']);
    const [second] = await embedder.embed(['The deploy failed because the migration timed out']);
    expect(Array.from(second)).toEqual(Array.from(first));
  });

  it('puts paraphrases closer than unrelated sentences', async () => {
    const [db, dbParaphrase, cat, doctor, doctorParaphrase, revenue] = await embedder.embed([
      'We decided to use PostgreSQL for storage',
      'The team chose Postgres as the database',
      'My cat sleeps on the sofa',
      'The physician prescribed a new medicine',
      'A doctor gave me a new medication',
      'Quarterly revenue grew in Europe',
    ]);
    expect(dot(db, dbParaphrase)).toBeGreaterThan(dot(db, cat) + 0.2);
    expect(dot(doctor, doctorParaphrase)).toBeGreaterThan(dot(doctor, revenue) + 0.2);
  });

  it('gives the event loop turns while it embeds a batch', async () => {
    let running = true;
    const ticks: number[] = [];
    const tick = () => {
      ticks.push(performance.now());
      if (running) setImmediate(tick);
    };
    const texts = Array.from(
      { length: 32 },
      (_, i) => `memory ${i}: the staging database moved to a new host after the ${i}th incident review`,
    );
    const startedAt = performance.now();
    setImmediate(tick);
    await embedder.embed(texts);
    running = false;
    const took = performance.now() - startedAt;
    if (runtime === 'tfjs') {
      // The graph runs on its own thread (≈20 ms a text): the loop keeps turning throughout.
      expect(ticks.length).toBeGreaterThan(100);
    } else {
      // onnxruntime computes on the main thread (use-lite-onnx-session.ts says why) in runs of 8
      // texts: the loop turns between runs and is never held for the whole batch.
      const gaps = ticks.slice(1).map((at, i) => at - ticks[i]);
      expect(ticks.length).toBeGreaterThanOrEqual(4);
      expect(Math.max(...gaps)).toBeLessThan(took * 0.6);
    }
  });

  it('embeds an empty text as the zero vector (similar to nothing)', async () => {
    const [empty, text, alsoEmpty] = await embedder.embed(['', 'Never deploy on Fridays', '']);
    const [alone] = await embedder.embed(['Never deploy on Fridays']);
    expect(Array.from(empty).every((value) => value === 0)).toBe(true);
    expect(Array.from(alsoEmpty).every((value) => value === 0)).toBe(true);
    expect(dot(text, alone)).toBeGreaterThan(0.9999);
  });
});

describe('USE-lite without its ONNX build and without TF.js', () => {
  it('finds no TF.js from a folder outside the project', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'no-tfjs-'));
    try {
      expect(resolveTfjsModules(join(elsewhere, 'adapter.js'))).toBeUndefined();
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('resolves the project copy, which is not a dependency of the service', () => {
    ensureTfjsReference();
    const modules = resolveTfjsModules();
    expect(modules?.core).toContain(join('@tensorflow', 'tfjs-core'));
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies).filter((name) => name.startsWith('@tensorflow/'))).toEqual([]);
  });
});
