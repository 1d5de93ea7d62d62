import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingError, EmbeddingErrorCode } from '@app/embeddings';
import { TransformersEmbedderProvider, type TransformersEmbedder } from '@app/embeddings/testing';

// Builds the default model with the real script and loads it through the real adapter
// (transformers.js + onnxruntime-node). No network: everything comes from node_modules.

const root = resolve(__dirname, '..', '..', '..');
const MODEL = 'glove-sif-100d';
const FILES = [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'onnx/model.onnx',
  'onnx/model_quantized.onnx',
];

interface BuildSummary {
  path: string;
  cached: boolean;
  seconds: number;
  dimensions: number;
  vocabulary: number;
  stamp: unknown;
  files: Record<string, number>;
}

function buildModel(modelsDir: string, ...extra: string[]): BuildSummary {
  const result = spawnSync(
    process.execPath,
    [
      'scripts/build-embedding-model.mjs',
      '--model',
      MODEL,
      '--models-dir',
      modelsDir,
      '--json',
      '--quiet',
      ...extra,
    ],
    { cwd: root, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`model build failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout) as BuildSummary;
}

const readStamp = (folder: string): unknown =>
  existsSync(join(folder, 'build-stamp.json'))
    ? JSON.parse(readFileSync(join(folder, 'build-stamp.json'), 'utf8'))
    : undefined;

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i], 0);
const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

const newProvider = (modelsDir: string, quantized = false) =>
  new TransformersEmbedderProvider({
    defaultModelId: MODEL,
    modelsDir,
    allowRemote: false,
    quantized,
    batchSize: 32,
    batchWaitMs: 2,
  });

describe('default embedding model (glove-sif-100d)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'embedding-model-'));
  const modelsDir = join(scratch, 'models');
  let built: BuildSummary;
  let provider: TransformersEmbedderProvider;
  let embedder: TransformersEmbedder;

  beforeAll(async () => {
    built = buildModel(modelsDir);
    provider = newProvider(modelsDir);
    embedder = await provider.get(MODEL);
  }, 180_000);

  afterAll(async () => {
    await provider?.onModuleDestroy();
    rmSync(scratch, { recursive: true, force: true });
  });

  const embedOne = async (text: string) => (await embedder.embed([text]))[0];
  const similarity = async (a: string, b: string) => dot(await embedOne(a), await embedOne(b));

  it('builds every file transformers.js needs, and skips the work when the stamp matches', () => {
    expect(built.cached).toBe(false);
    expect(built.dimensions).toBe(100);
    expect(built.vocabulary).toBeGreaterThan(50_000);
    for (const file of FILES) expect(built.files[file]).toBeGreaterThan(0);

    const again = buildModel(modelsDir);
    expect(again.cached).toBe(true);
    expect(again.stamp).toEqual(built.stamp);
  });

  it('is deterministic: a second build is byte-identical', () => {
    // Reuse ./models when it holds a build with the same stamp; otherwise build a second copy.
    const shared = join(root, 'models', MODEL);
    let reference = shared;
    if (JSON.stringify(readStamp(shared)) !== JSON.stringify(built.stamp)) {
      reference = buildModel(join(scratch, 'second'), '--force').path;
    }
    for (const file of [...FILES, 'build-stamp.json']) {
      const same = readFileSync(join(built.path, file)).equals(readFileSync(join(reference, file)));
      expect(same, `${file} differs from ${reference}`).toBe(true);
    }
  }, 120_000);

  it('embeds into 100-d unit vectors', async () => {
    const vectors = await embedder.embed(['The deploy failed', 'car', 'Use pnpm, not npm, in this repo.']);

    expect(embedder.dimensions).toBe(100);
    for (const vector of vectors) {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector).toHaveLength(100);
      expect(norm(vector)).toBeCloseTo(1, 5);
    }
  });

  it('places synonyms closer than unrelated words', async () => {
    expect(await similarity('car', 'automobile')).toBeGreaterThan(await similarity('car', 'banana'));
    expect(await similarity('physician', 'doctor')).toBeGreaterThan(await similarity('physician', 'guitar'));
  });

  it('places a paraphrase that swaps in synonyms closer than an unrelated sentence', async () => {
    const cases = [
      [
        'The physician prescribed a new medicine',
        'A doctor gave me a new medication',
        'Quarterly revenue grew in Europe',
      ],
      [
        'We decided to use PostgreSQL for storage',
        'The team chose Postgres as the database',
        'My cat sleeps on the sofa',
      ],
      [
        'The deploy failed because the migration timed out',
        'Deployment broke since the migration hit a timeout',
        'Bake the cake for forty minutes',
      ],
    ];
    for (const [sentence, paraphrase, unrelated] of cases) {
      expect(await similarity(sentence, paraphrase), sentence).toBeGreaterThan(
        await similarity(sentence, unrelated),
      );
    }
  });

  it('gives the same vectors in one batch as one by one', async () => {
    const texts = [
      'short',
      'A much longer memory about the flaky integration test that times out on CI when Redis restarts',
      'Prefer tabs over spaces',
      'database connection pool exhausted under load',
    ];
    const batched = await embedder.embed(texts);
    const single = await Promise.all(texts.map(async (text) => (await embedder.embed([text]))[0]));
    const oneByOne: Float32Array[] = [];
    for (const text of texts) oneByOne.push(await embedOne(text));

    texts.forEach((_, i) => {
      for (let d = 0; d < 100; d += 1) {
        expect(batched[i][d]).toBeCloseTo(oneByOne[i][d], 6);
        expect(single[i][d]).toBeCloseTo(oneByOne[i][d], 6);
      }
    });
  });

  it('returns the zero vector for a text without any known word instead of NaN', async () => {
    const [empty, unknown, known] = await embedder.embed(['', 'zqxjkv qqqzzz', 'zqxjkv database']);

    expect(Array.from(empty).every((value) => value === 0)).toBe(true);
    expect(Array.from(unknown).every((value) => value === 0)).toBe(true);
    expect(norm(known)).toBeCloseTo(1, 5);
    expect(dot(known, await embedOne('database'))).toBeCloseTo(1, 5);
  });

  it('tokenizes with the real transformers.js tokenizer as a word-level lookup', async () => {
    const { AutoTokenizer } = await import('@huggingface/transformers');
    const tokenizer = await AutoTokenizer.from_pretrained(built.path, { local_files_only: true });
    const { model } = JSON.parse(readFileSync(join(built.path, 'tokenizer.json'), 'utf8')) as {
      model: { vocab: Record<string, number> };
    };
    const vocabulary = Object.entries(model.vocab);
    // Every vocabulary word must come back as itself, or its row could never be looked up.
    for (let i = 2; i < vocabulary.length; i += 997) {
      const [word, id] = vocabulary[i];
      expect(tokenizer.encode(word, { add_special_tokens: false }), word).toEqual([id]);
    }
    expect(tokenizer.tokenize('Hello, WORLD! Café')).toEqual(['hello', ',', 'world', '!', 'cafe']);
    expect(tokenizer.encode('zqxjkv', { add_special_tokens: false })).toEqual([1]);
  });

  it('loads the quantized variant, which agrees with the float model', async () => {
    const quantizedProvider = newProvider(modelsDir, true);
    try {
      const quantized = await quantizedProvider.get(MODEL);
      const texts = [
        'car',
        'The deploy failed because the database migration timed out',
        'Always run the linter before pushing code',
        'the kitten slept on the rug',
      ];
      const [floats, ints] = [await embedder.embed(texts), await quantized.embed(texts)];

      expect(quantized.dimensions).toBe(100);
      texts.forEach((text, i) => expect(dot(floats[i], ints[i]), text).toBeGreaterThan(0.98));
    } finally {
      await quantizedProvider.onModuleDestroy();
    }
  });

  it('fails with the path it looked in when the model was never built', async () => {
    const emptyDir = join(scratch, 'empty-models');
    const failure = await newProvider(emptyDir)
      .get(MODEL)
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(EmbeddingError);
    expect((failure as EmbeddingError).code).toBe(EmbeddingErrorCode.ModelUnavailable);
    expect((failure as EmbeddingError).message).toContain(join(emptyDir, MODEL));
    expect((failure as EmbeddingError).message).toContain('build-embedding-model.mjs');
  });
});
