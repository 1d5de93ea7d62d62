import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransformersEmbedderProvider, type TransformersEmbedder } from '@app/embeddings/testing';
import { SentencePieceTokenizer } from '../src/adapters/embedding/use-lite/sentencepiece-tokenizer';
import { useLiteModelFolder } from '../src/adapters/embedding/use-lite/use-lite-runtime';

// Universal Sentence Encoder lite through the provider, which picks the TF.js (WASM) runtime by
// model id. The weights come from node_modules; MODELS_DIR is empty on purpose: nothing is built
// or downloaded for this model.

const MODEL = 'use-lite-512d';
const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i], 0);

describe('USE-lite embedder (use-lite-512d)', () => {
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

  it('keeps the event loop free while it embeds (the model runs on its own thread)', async () => {
    let ticks = 0;
    let running = true;
    const tick = () => {
      ticks += 1;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const texts = Array.from(
      { length: 32 },
      (_, i) => `memory ${i}: the staging database moved to a new host`,
    );
    await embedder.embed(texts);
    running = false;
    // 32 texts take tens of milliseconds of model time; a blocked loop would tick a few times.
    expect(ticks).toBeGreaterThan(100);
  });

  it('embeds an empty text as the zero vector (similar to nothing)', async () => {
    const [empty, text, alsoEmpty] = await embedder.embed(['', 'Never deploy on Fridays', '']);
    const [alone] = await embedder.embed(['Never deploy on Fridays']);
    expect(Array.from(empty).every((value) => value === 0)).toBe(true);
    expect(Array.from(alsoEmpty).every((value) => value === 0)).toBe(true);
    expect(dot(text, alone)).toBeGreaterThan(0.9999);
  });
});
