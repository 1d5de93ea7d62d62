import { EmbeddingError, EmbeddingErrorCode } from '../../domain/embedding.errors';
import { assertModelFilesPresent, type ModelDtype } from './model-files';
import { loadTransformersModel, type ModelLoader } from './transformers-runtime';
import {
  loadUseLiteModel,
  USE_LITE_MODEL_ID,
  USE_LITE_PACKAGE,
  useLiteModelFolder,
} from './use-lite/use-lite-runtime';

/**
 * Which runtime serves a model id. Universal Sentence Encoder lite has its own adapter (its ONNX
 * build on onnxruntime, or the TF.js graph from its npm package); every other id is a
 * transformers.js folder under MODELS_DIR (the models the project builds itself, and hub models
 * downloaded at image build time).
 */
export const loadModelById: ModelLoader = (request) =>
  request.modelId === USE_LITE_MODEL_ID ? loadUseLiteModel(request) : loadTransformersModel(request);

/** Fails with where the model was looked for and how to get it, without loading it. */
export function assertModelAvailable(options: {
  modelsDir: string;
  modelId: string;
  dtype: ModelDtype;
}): void {
  if (options.modelId !== USE_LITE_MODEL_ID) return assertModelFilesPresent(options);
  if (useLiteModelFolder()) return;
  throw new EmbeddingError(
    EmbeddingErrorCode.ModelUnavailable,
    `Embedding model "${USE_LITE_MODEL_ID}" not found: it is read from the npm package ${USE_LITE_PACKAGE}, ` +
      'which is not installed. Run `npm install`.',
  );
}
