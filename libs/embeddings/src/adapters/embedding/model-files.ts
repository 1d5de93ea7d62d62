import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EmbeddingError, EmbeddingErrorCode } from '../../domain/embedding.errors';

/** The models the project builds itself (scripts/build-embedding-model.mjs --model <id>). */
export const BUILT_IN_MODEL_ID = 'glove-sif-100d';
export const DISTILLED_MODEL_ID = 'use-lite-distilled-512d';

export type ModelDtype = 'fp32' | 'q8';

/** The graph transformers.js loads for `dtype`, relative to the model folder. */
export function onnxModelFile(dtype: ModelDtype): string {
  return dtype === 'q8' ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx';
}

/** Files transformers.js reads for a feature-extraction model, relative to its folder. */
export function requiredModelFiles(dtype: ModelDtype): string[] {
  return ['config.json', 'tokenizer.json', 'tokenizer_config.json', onnxModelFile(dtype)];
}

/** Where transformers.js looks for a model id when `env.localModelPath` is modelsDir. */
export function modelFolder(modelsDir: string, modelId: string): string {
  return join(resolve(modelsDir), ...modelId.split('/'));
}

/**
 * Fails with a message naming the folder, the missing files and how to get them, instead of
 * transformers.js' generic "file was not found locally" deep inside the first embed call.
 */
export function assertModelFilesPresent(options: {
  modelsDir: string;
  modelId: string;
  dtype: ModelDtype;
}): void {
  const folder = modelFolder(options.modelsDir, options.modelId);
  const missing = requiredModelFiles(options.dtype).filter((file) => !existsSync(join(folder, file)));
  if (missing.length === 0) return;
  throw new EmbeddingError(
    EmbeddingErrorCode.ModelUnavailable,
    `Embedding model "${options.modelId}" not found: looked in ${folder} (missing ${missing.join(', ')}). ` +
      howToGet(options.modelId, options.modelsDir),
  );
}

function howToGet(modelId: string, modelsDir: string): string {
  if (modelId === BUILT_IN_MODEL_ID || modelId === DISTILLED_MODEL_ID) {
    return `Build it with \`node scripts/build-embedding-model.mjs --model ${modelId} --models-dir ${modelsDir}\`.`;
  }
  return (
    `Download it into MODELS_DIR at image build time (the only place downloads are allowed): ` +
    `\`EMBEDDING_ALLOW_REMOTE=true MODELS_DIR=${modelsDir} node scripts/embedding-model/download-hub-model.mjs ${modelId}\`. ` +
    `See docs/embeddings.md.`
  );
}
