import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransformersEmbedderProvider, type TransformersEmbedder } from '@app/embeddings/testing';
import { SentencePieceTokenizer } from '../src/adapters/embedding/use-lite/sentencepiece-tokenizer';
import { useLiteModelFolder } from '../src/adapters/embedding/use-lite/use-lite-runtime';

// Builds use-lite-distilled-512d with the real script (a small vocabulary keeps it quick) and
// serves it through the real transformers.js adapter. No network: teacher and word list come
// from node_modules.

const root = resolve(__dirname, '..', '..', '..');
const MODEL = 'use-lite-distilled-512d';
const VOCABULARY = 4000;

interface BuildSummary {
  cached: boolean;
  dimensions: number;
  vocabulary: number;
  files: Record<string, number>;
}

function build(modelsDir: string): BuildSummary {
  const result = spawnSync(
    process.execPath,
    [
      'scripts/build-embedding-model.mjs',
      ...['--model', MODEL, '--models-dir', modelsDir, '--vocab-size', String(VOCABULARY)],
      ...['--json', '--quiet'],
    ],
    { cwd: root, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`model build failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout) as BuildSummary;
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i], 0);

describe('distilled static model (use-lite-distilled-512d)', () => {
  const modelsDir = mkdtempSync(join(tmpdir(), 'distilled-model-'));
  let first: BuildSummary;
  let provider: TransformersEmbedderProvider;
  let embedder: TransformersEmbedder;

  beforeAll(async () => {
    first = build(modelsDir);
    provider = new TransformersEmbedderProvider({
      defaultModelId: MODEL,
      modelsDir,
      allowRemote: false,
      quantized: false,
      batchSize: 32,
      batchWaitMs: 2,
    });
    embedder = await provider.get(MODEL);
  }, 300_000);
  afterAll(async () => {
    await provider?.onModuleDestroy();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  it('writes a 512-d Gather model over the requested vocabulary, and a second build is a cache hit', () => {
    expect(first).toMatchObject({ cached: false, dimensions: 512, vocabulary: VOCABULARY });
    expect(first.files['onnx/model.onnx']).toBeGreaterThan(VOCABULARY * 512 * 4);
    expect(first.files['onnx/model_quantized.onnx']).toBeLessThan(first.files['onnx/model.onnx'] / 3);
    expect(build(modelsDir)).toMatchObject({ cached: true, vocabulary: VOCABULARY });
  });

  it('tokenises for the teacher exactly as the service adapter does', async () => {
    const teacher = (await import(
      pathToFileURL(join(root, 'scripts/embedding-model/use-lite-teacher.mjs')).href
    )) as { createUseLiteTokenizer: (vocabulary: unknown) => (text: string) => number[] };
    const folder = useLiteModelFolder();
    if (!folder) throw new Error('the USE-lite package is not installed');
    const vocabulary = JSON.parse(readFileSync(join(folder, 'vocab.json'), 'utf8')) as [string, number][];
    const mjs = teacher.createUseLiteTokenizer(vocabulary);
    const ts = new SentencePieceTokenizer(vocabulary);
    for (const text of ['doctor', 'Kubernetes pods crash', 'naïve café ｆｕｌｌ', '', 'e-mail 🚀 x']) {
      expect(mjs(text)).toEqual(ts.encode(text));
    }
  });

  it('serves unit vectors in which related texts are closer than unrelated ones', async () => {
    const [doctor, physician, money, empty] = await embedder.embed([
      'the doctor gave her medicine',
      'a hospital nurse and a patient',
      'the bank raised interest rates',
      '',
    ]);
    expect(dot(doctor, doctor)).toBeCloseTo(1, 4);
    expect(dot(doctor, physician)).toBeGreaterThan(dot(doctor, money) + 0.1);
    expect(Array.from(empty).every((value) => value === 0)).toBe(true);
  });
});
