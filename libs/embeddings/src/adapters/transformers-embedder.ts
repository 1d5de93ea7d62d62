import { type AppConfig } from '@app/config';
import { EmbeddingError, EmbeddingErrorCode } from '../domain/embedding.errors';
import type { Embedder, EmbedderProvider } from '../ports/embedder.port';
import { MicroBatcher } from './embedding/micro-batcher';
import { type ModelDtype } from './embedding/model-files';
import { assertModelAvailable, loadModelById } from './embedding/model-runtimes';
import { type LoadedModel, type ModelLoader } from './embedding/transformers-runtime';

/** An Embedder over one loaded model; concurrent `embed` calls share batches. */
export class TransformersEmbedder implements Embedder {
  readonly dimensions: number;
  private readonly batcher: MicroBatcher<string, Float32Array>;

  constructor(
    readonly modelId: string,
    private readonly model: LoadedModel,
    batching: { readonly batchSize: number; readonly batchWaitMs: number },
  ) {
    this.dimensions = model.dimensions;
    this.batcher = new MicroBatcher({
      maxBatchSize: batching.batchSize,
      maxWaitMs: batching.batchWaitMs,
      run: (texts) => model.embedBatch(texts),
    });
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.batcher.submit(texts);
  }

  dispose(): Promise<void> {
    return this.model.dispose();
  }
}

export interface TransformersEmbedderProviderOptions {
  readonly defaultModelId: string;
  readonly modelsDir: string;
  readonly allowRemote: boolean;
  readonly quantized: boolean;
  readonly batchSize: number;
  readonly batchWaitMs: number;
  /** Replaced in unit tests; defaults to the runtime the model id needs (model-runtimes.ts). */
  readonly loadModel?: ModelLoader;
}

/**
 * Picks the runtime by model id (transformers.js for model folders; for use-lite-512d its ONNX
 * build, else TF.js) and loads each model lazily, once: the first `get(id)` starts the load and
 * concurrent callers await the same promise. A failed load is forgotten so a later call can retry (e.g. after the
 * model was built). During a model switch the worker holds both the old and the new model.
 */
export class TransformersEmbedderProvider implements EmbedderProvider {
  readonly defaultModelId: string;
  private readonly embedders = new Map<string, Promise<TransformersEmbedder>>();
  private readonly loadModel: ModelLoader;

  constructor(private readonly options: TransformersEmbedderProviderOptions) {
    this.defaultModelId = options.defaultModelId;
    this.loadModel = options.loadModel ?? loadModelById;
  }

  get(modelId: string): Promise<TransformersEmbedder> {
    let embedder = this.embedders.get(modelId);
    if (!embedder) {
      embedder = this.load(modelId);
      this.embedders.set(modelId, embedder);
      const pending = embedder;
      pending.catch(() => {
        if (this.embedders.get(modelId) === pending) this.embedders.delete(modelId);
      });
    }
    return embedder;
  }

  /**
   * Checks that a model's files are in MODELS_DIR without loading it (cheap; meant for boot).
   * With remote loading allowed the files may legitimately be absent until the first load.
   */
  assertAvailable(modelId: string = this.defaultModelId): void {
    if (this.options.allowRemote) return;
    assertModelAvailable({ modelsDir: this.options.modelsDir, modelId, dtype: this.dtype });
  }

  /** Releases every loaded model's ONNX session (Nest calls this on shutdown). */
  async onModuleDestroy(): Promise<void> {
    const loaded = await Promise.allSettled([...this.embedders.values()]);
    this.embedders.clear();
    await Promise.all(
      loaded.map((result) => (result.status === 'fulfilled' ? result.value.dispose() : undefined)),
    );
  }

  private get dtype(): ModelDtype {
    return this.options.quantized ? 'q8' : 'fp32';
  }

  private async load(modelId: string): Promise<TransformersEmbedder> {
    this.assertAvailable(modelId);
    const { modelsDir, allowRemote, batchSize, batchWaitMs } = this.options;
    let model: LoadedModel;
    try {
      model = await this.loadModel({ modelId, modelsDir, allowRemote, dtype: this.dtype });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new EmbeddingError(
        EmbeddingErrorCode.ModelUnavailable,
        `Embedding model "${modelId}" could not be loaded from ${modelsDir}: ${reason}`,
      );
    }
    return new TransformersEmbedder(modelId, model, { batchSize, batchWaitMs });
  }
}

/** Nest factory for EMBEDDER_PROVIDER. */
export function embedderProviderFactory(config: AppConfig): TransformersEmbedderProvider {
  const { model, modelsDir, allowRemote, quantized, batchSize, batchWaitMs } = config.embeddings;
  return new TransformersEmbedderProvider({
    defaultModelId: model,
    modelsDir,
    allowRemote,
    quantized,
    batchSize,
    batchWaitMs,
  });
}
