import { resolve } from 'node:path';
import type { FeatureExtractionPipeline } from '@huggingface/transformers';
import type { ModelDtype } from './model-files';

/** A feature-extraction model ready to run: one call embeds one batch. */
export interface LoadedModel {
  readonly dimensions: number;
  embedBatch(texts: readonly string[]): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

export interface ModelLoadRequest {
  readonly modelId: string;
  readonly modelsDir: string;
  readonly allowRemote: boolean;
  readonly dtype: ModelDtype;
}

export type ModelLoader = (request: ModelLoadRequest) => Promise<LoadedModel>;

/**
 * Loads a model with transformers.js. The library is imported on first use so that a process
 * that never embeds (or a unit test) does not load onnxruntime's native binding.
 *
 * transformers.js' `env` is process-wide: one MODELS_DIR per process. The cache directory is set
 * to MODELS_DIR as well, so a download (only allowed at image build time) lands exactly where
 * local loading looks for it afterwards: `<MODELS_DIR>/<org>/<name>/…`.
 */
export const loadTransformersModel: ModelLoader = async (request) => {
  const { env, pipeline } = await import('@huggingface/transformers');
  const modelsDir = resolve(request.modelsDir);
  env.localModelPath = modelsDir;
  env.cacheDir = modelsDir;
  env.allowLocalModels = true;
  env.allowRemoteModels = request.allowRemote;

  const extractor = await pipeline('feature-extraction', request.modelId, {
    dtype: request.dtype,
    local_files_only: !request.allowRemote,
  });
  const embedBatch = async (texts: readonly string[]): Promise<Float32Array[]> => {
    if (texts.length === 0) return [];
    const output = await extractor([...texts], { pooling: 'mean', normalize: true });
    return splitRows(output.data, output.dims, texts.length);
  };
  const dimensions = configuredDimensions(extractor) ?? (await embedBatch(['dimension probe']))[0].length;
  return { dimensions, embedBatch, dispose: () => extractor.dispose() };
};

function configuredDimensions(extractor: FeatureExtractionPipeline): number | undefined {
  const config: object = extractor.model.config;
  return 'hidden_size' in config && typeof config.hidden_size === 'number' ? config.hidden_size : undefined;
}

/**
 * One Float32Array per text. A text with no known token (empty, or only out-of-vocabulary words
 * for the static model) has no direction: pooling divides by zero and normalising yields NaN.
 * It becomes the zero vector, which is similar to nothing, instead of poisoning a vector index.
 */
function splitRows(data: ArrayLike<unknown>, dims: readonly number[], count: number): Float32Array[] {
  if (!(data instanceof Float32Array) || dims.length !== 2 || dims[0] !== count) {
    throw new Error(`unexpected embedding output: dims [${dims.join(', ')}] for ${count} texts`);
  }
  const width = dims[1];
  const rows: Float32Array[] = [];
  for (let row = 0; row < count; row += 1) {
    const vector = data.slice(row * width, (row + 1) * width);
    if (!vector.every(Number.isFinite)) vector.fill(0);
    rows.push(vector);
  }
  return rows;
}
