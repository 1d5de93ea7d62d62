import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Logger } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadModelById, type LoadedModel } from '@app/embeddings/testing';
import { SentencePieceTokenizer } from '../src/adapters/embedding/use-lite/sentencepiece-tokenizer';
import { useLiteModelFolder } from '../src/adapters/embedding/use-lite/use-lite-runtime';
import { ensureTfjsReference } from './support/tfjs-reference';

// The ONNX translation of USE-lite (scripts/embedding-model/use-lite-onnx.mjs) must compute the
// packaged TF.js graph's vectors. Both runtimes embed the texts of every eval corpus in
// bench/datasets (corpus and queries; every third text, or all with USE_LITE_EQUALITY_FULL=1) and
// edge cases; the float graph must agree with TF.js on every text, and the int8 graph (the option
// EMBEDDING_QUANTIZED=true) closely.

const root = resolve(__dirname, '../../..');
const MODEL = 'use-lite-512d';
const STRIDE = process.env.USE_LITE_EQUALITY_FULL === '1' ? 1 : 3;
/** Float32 sums in a different order differ by ~1e-7 relative; a wrong op shows as far less. */
const FLOAT_AGREEMENT = 0.99999;

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i], 0);
const isZero = (vector: Float32Array) => vector.every((value) => value === 0);

function evalTexts(): Map<string, string[]> {
  const sets = new Map<string, string[]>();
  const datasets = join(root, 'bench', 'datasets');
  for (const dataset of readdirSync(datasets).sort()) {
    for (const file of ['corpus.jsonl', 'queries.jsonl']) {
      const path = join(datasets, dataset, file);
      if (!existsSync(path)) continue;
      const texts = readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => (JSON.parse(line) as { text: string }).text);
      sets.set(
        `${dataset}/${file.replace('.jsonl', '')}`,
        texts.filter((_, i) => i % STRIDE === 0),
      );
    }
  }
  return sets;
}

const LONG_MEMORY = Array.from(
  { length: 60 },
  (_, i) => `Step ${i}: restart the billing worker, then check the queue depth on the Grafana board.`,
).join(' ');
const EDGE_CASES = [
  '',
  'a',
  '.',
  '   ',
  'café naïve résumé',
  'ﬁ ligature, full-width ＡＢＣ１２３, ½ (NFKC folds them)',
  '日本語のテキストと中文的句子',
  'Привет, мир — Ελληνικά',
  '😀🚀👍',
  'zero\u200bwidth\u200djoiners',
  'tabs\tand\nnewlines\r\nmixed',
  'const token = req.headers?.authorization ?? ""; // never log it',
  LONG_MEMORY,
  'x'.repeat(3000),
];

interface Agreement {
  readonly min: number;
  readonly mean: number;
  readonly worst: string;
}

function agreement(reference: Float32Array[], candidate: Float32Array[], texts: string[]): Agreement {
  let min = 1;
  let sum = 0;
  let worst = '';
  let counted = 0;
  reference.forEach((vector, i) => {
    if (isZero(vector)) return; // a text without pieces; checked apart
    const cosine = dot(vector, candidate[i]);
    sum += cosine;
    counted += 1;
    if (cosine < min) [min, worst] = [cosine, texts[i]];
  });
  return { min, mean: sum / counted, worst };
}

describe('USE-lite on onnxruntime computes the TF.js graph’s vectors', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'use-lite-onnx-'));
  const built = join(scratch, 'built');
  const empty = join(scratch, 'empty');
  const sets = evalTexts();
  sets.set('edge cases', EDGE_CASES);
  const warn = vi.spyOn(Logger.prototype, 'warn');
  const log = vi.spyOn(Logger.prototype, 'log');
  const models: LoadedModel[] = [];
  const vectors = new Map<string, { tfjs: Float32Array[]; fp32: Float32Array[]; q8: Float32Array[] }>();

  beforeAll(async () => {
    const build = spawnSync(
      process.execPath,
      ['scripts/build-embedding-model.mjs', '--model', MODEL, '--models-dir', built, '--quiet'],
      { cwd: root, encoding: 'utf8' },
    );
    if (build.status !== 0) throw new Error(`model build failed (${build.status}): ${build.stderr}`);
    ensureTfjsReference();

    const load = (modelsDir: string, dtype: 'fp32' | 'q8') =>
      loadModelById({ modelId: MODEL, modelsDir, allowRemote: false, dtype }).then((model) => {
        models.push(model);
        return model;
      });
    const tfjs = await load(empty, 'fp32');
    const fp32 = await load(built, 'fp32');
    const q8 = await load(built, 'q8');
    for (const [name, texts] of sets) {
      vectors.set(name, {
        tfjs: await tfjs.embedBatch(texts),
        fp32: await fp32.embedBatch(texts),
        q8: await q8.embedBatch(texts),
      });
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all(models.map((model) => model.dispose()));
    rmSync(scratch, { recursive: true, force: true });
    vi.restoreAllMocks();
  });

  it('runs on onnxruntime when the ONNX build is in MODELS_DIR, and says so when it falls back to TF.js', () => {
    const messages = (spy: typeof warn) => spy.mock.calls.map(([message]) => String(message));
    for (const dtype of ['fp32', 'q8']) {
      expect(messages(log).some((line) => line.startsWith(`${MODEL} runs on onnxruntime (${dtype},`))).toBe(
        true,
      );
    }
    const fallback = messages(warn).find((line) => line.includes('no ONNX build'));
    expect(fallback).toContain(join(empty, MODEL));
    expect(fallback).toContain('TF.js');
    expect(fallback).toContain('scripts/build-embedding-model.mjs --model use-lite-512d');
  });

  it('covers every eval corpus, and edge cases up to texts longer than the graph reads', () => {
    const folder = useLiteModelFolder();
    if (!folder) throw new Error('the USE-lite package is not installed');
    const vocabulary = JSON.parse(readFileSync(join(folder, 'vocab.json'), 'utf8')) as [string, number][];
    const tokenizer = new SentencePieceTokenizer(vocabulary);
    expect([...sets.keys()]).toEqual(
      expect.arrayContaining(['agent-memory/corpus', 'team-conversations/queries']),
    );
    const sampled = [...sets.values()].reduce((count, texts) => count + texts.length, 0);
    expect(sampled).toBeGreaterThanOrEqual(300);
    expect(tokenizer.encode(LONG_MEMORY).length).toBeGreaterThan(512);
  });

  it('float graph: cosine ≥ 0.99999 with TF.js on every text; no pieces → zero vector in both', () => {
    const rows: Record<string, string | number>[] = [];
    for (const [name, texts] of sets) {
      const { tfjs, fp32 } = vectors.get(name)!;
      tfjs.forEach((vector, i) => expect(isZero(fp32[i]), texts[i]).toBe(isZero(vector)));
      const { min, mean, worst } = agreement(tfjs, fp32, texts);
      rows.push({ set: name, texts: texts.length, 'fp32 min': min, 'fp32 mean': mean });
      expect(min, `${name}: "${worst.slice(0, 80)}"`).toBeGreaterThanOrEqual(FLOAT_AGREEMENT);
    }
    console.table(rows);
  });

  it('int8 graph: cosine ≥ 0.999 with TF.js on every text', () => {
    const rows: Record<string, string | number>[] = [];
    for (const [name, texts] of sets) {
      const { tfjs, q8 } = vectors.get(name)!;
      const { min, mean, worst } = agreement(tfjs, q8, texts);
      rows.push({
        set: name,
        texts: texts.length,
        'int8 min': min,
        'int8 mean': mean,
        worst: worst.slice(0, 40),
      });
      expect(min, `${name}: "${worst.slice(0, 80)}"`).toBeGreaterThanOrEqual(0.999);
    }
    console.table(rows);
  });
});
