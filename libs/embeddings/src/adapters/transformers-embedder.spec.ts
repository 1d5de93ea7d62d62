import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigModule, loadConfig } from '@app/config';
import { EmbeddingError, EmbeddingErrorCode } from '../domain/embedding.errors';
import { EmbedderModule } from '../embedder.module';
import { EMBEDDER_PROVIDER } from '../ports/embedder.port';
import { QueryEmbeddingCache } from './embedding/query-embedding-cache';
import type { LoadedModel, ModelLoadRequest } from './embedding/transformers-runtime';
import { embedderProviderFactory, TransformersEmbedderProvider } from './transformers-embedder';

/** A stand-in for transformers.js: vectors are [text length, batch size]. */
function fakeLoader(options: { failFirst?: boolean } = {}) {
  const requests: ModelLoadRequest[] = [];
  const batches: string[][] = [];
  const disposed: string[] = [];
  let failNext = options.failFirst ?? false;
  const loadModel = vi.fn(async (request: ModelLoadRequest): Promise<LoadedModel> => {
    requests.push(request);
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (failNext) {
      failNext = false;
      throw new Error('onnxruntime exploded');
    }
    return {
      dimensions: 2,
      async embedBatch(texts) {
        batches.push([...texts]);
        return texts.map((text) => Float32Array.from([text.length, texts.length]));
      },
      async dispose() {
        disposed.push(request.modelId);
      },
    };
  });
  return { loadModel, requests, batches, disposed };
}

function writeModelFiles(modelsDir: string, modelId: string, onnxFile = 'model.onnx'): void {
  const folder = join(modelsDir, ...modelId.split('/'));
  mkdirSync(join(folder, 'onnx'), { recursive: true });
  for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json', `onnx/${onnxFile}`]) {
    writeFileSync(join(folder, file), '{}');
  }
}

describe('TransformersEmbedderProvider', () => {
  let modelsDir: string;

  beforeEach(() => {
    modelsDir = mkdtempSync(join(tmpdir(), 'embedder-spec-'));
  });
  afterEach(() => {
    rmSync(modelsDir, { recursive: true, force: true });
  });

  const provider = (loadModel: ReturnType<typeof fakeLoader>['loadModel'], overrides = {}) =>
    new TransformersEmbedderProvider({
      defaultModelId: 'glove-sif-100d',
      modelsDir,
      allowRemote: false,
      quantized: false,
      batchSize: 32,
      batchWaitMs: 2,
      loadModel,
      ...overrides,
    });

  it('loads nothing until asked, then loads each model once even for concurrent callers', async () => {
    writeModelFiles(modelsDir, 'glove-sif-100d');
    writeModelFiles(modelsDir, 'Xenova/all-MiniLM-L6-v2');
    const { loadModel, requests } = fakeLoader();
    const embedders = provider(loadModel);
    expect(loadModel).not.toHaveBeenCalled();

    const [a, b] = await Promise.all([embedders.get('glove-sif-100d'), embedders.get('glove-sif-100d')]);
    const other = await embedders.get('Xenova/all-MiniLM-L6-v2');

    expect(a).toBe(b);
    expect(other).not.toBe(a);
    expect(other.modelId).toBe('Xenova/all-MiniLM-L6-v2');
    expect(a.dimensions).toBe(2);
    expect(requests).toEqual([
      { modelId: 'glove-sif-100d', modelsDir, allowRemote: false, dtype: 'fp32' },
      { modelId: 'Xenova/all-MiniLM-L6-v2', modelsDir, allowRemote: false, dtype: 'fp32' },
    ]);
  });

  it('merges concurrent embed calls into one model batch', async () => {
    writeModelFiles(modelsDir, 'glove-sif-100d');
    const { loadModel, batches } = fakeLoader();
    const embedder = await provider(loadModel).get('glove-sif-100d');

    const [one, two] = await Promise.all([embedder.embed(['a', 'bb']), embedder.embed(['ccc'])]);

    expect(batches).toEqual([['a', 'bb', 'ccc']]);
    expect(one.map((v) => Array.from(v))).toEqual([
      [1, 3],
      [2, 3],
    ]);
    expect(two.map((v) => Array.from(v))).toEqual([[3, 3]]);
  });

  it('fails clearly, naming the folder it looked in, when the model files are missing', async () => {
    const { loadModel } = fakeLoader();
    const embedders = provider(loadModel);

    const failure = await embedders.get('glove-sif-100d').catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(EmbeddingError);
    expect((failure as EmbeddingError).code).toBe(EmbeddingErrorCode.ModelUnavailable);
    expect((failure as EmbeddingError).message).toContain(join(modelsDir, 'glove-sif-100d'));
    expect((failure as EmbeddingError).message).toContain('scripts/build-embedding-model.mjs');
    expect(() => embedders.assertAvailable()).toThrow(join(modelsDir, 'glove-sif-100d'));
    expect(loadModel).not.toHaveBeenCalled();
  });

  it('points at the download step for a hub model and checks the quantized file when quantized', async () => {
    writeModelFiles(modelsDir, 'Xenova/all-MiniLM-L6-v2', 'model.onnx');
    const { loadModel } = fakeLoader();
    const embedders = provider(loadModel, { quantized: true });

    const failure = await embedders.get('Xenova/all-MiniLM-L6-v2').catch((error: unknown) => error);

    expect((failure as Error).message).toContain('onnx/model_quantized.onnx');
    expect((failure as Error).message).toContain('download-hub-model.mjs Xenova/all-MiniLM-L6-v2');
  });

  it('leaves missing files to the loader when remote loading is allowed', async () => {
    const { loadModel, requests } = fakeLoader();

    await provider(loadModel, { allowRemote: true, quantized: true }).get('Xenova/all-MiniLM-L6-v2');

    expect(requests[0]).toMatchObject({ allowRemote: true, dtype: 'q8' });
  });

  it('reports a failed load with the model id and retries on the next call', async () => {
    writeModelFiles(modelsDir, 'glove-sif-100d');
    const { loadModel } = fakeLoader({ failFirst: true });
    const embedders = provider(loadModel);

    await expect(embedders.get('glove-sif-100d')).rejects.toThrow(
      'Embedding model "glove-sif-100d" could not be loaded',
    );
    await expect(embedders.get('glove-sif-100d')).resolves.toMatchObject({ modelId: 'glove-sif-100d' });
    expect(loadModel).toHaveBeenCalledTimes(2);
  });

  it('disposes every loaded model on shutdown', async () => {
    writeModelFiles(modelsDir, 'glove-sif-100d');
    const { loadModel, disposed } = fakeLoader();
    const embedders = provider(loadModel);
    await embedders.get('glove-sif-100d');

    await embedders.onModuleDestroy();

    expect(disposed).toEqual(['glove-sif-100d']);
  });

  it('is configured from config.embeddings', () => {
    const config = loadConfig({
      EMBEDDING_MODEL: 'Xenova/all-MiniLM-L6-v2',
      MODELS_DIR: modelsDir,
      EMBEDDING_QUANTIZED: 'true',
    });
    const embedders = embedderProviderFactory(config);

    expect(embedders.defaultModelId).toBe('Xenova/all-MiniLM-L6-v2');
    expect(() => embedders.assertAvailable()).toThrow(join(modelsDir, 'Xenova', 'all-MiniLM-L6-v2'));
  });
});

describe('EmbedderModule', () => {
  let modelsDir: string;

  beforeEach(() => {
    modelsDir = mkdtempSync(join(tmpdir(), 'embeddings-module-spec-'));
  });
  afterEach(() => {
    rmSync(modelsDir, { recursive: true, force: true });
  });

  const compile = (env: Record<string, string>) =>
    Test.createTestingModule({
      imports: [ConfigModule.forRoot(loadConfig({ MODELS_DIR: modelsDir, ...env })), EmbedderModule],
    }).compile();

  it('provides the embedder provider and the query cache without loading a model', async () => {
    // The default model (use-lite-512d) comes from node_modules: an empty MODELS_DIR is fine.
    const moduleRef = await compile({ QUERY_EMBEDDING_CACHE_SIZE: '5' });
    await moduleRef.init();

    const embedders = moduleRef.get(EMBEDDER_PROVIDER);
    expect(embedders).toBeInstanceOf(TransformersEmbedderProvider);
    expect(embedders.defaultModelId).toBe('use-lite-512d');
    expect(moduleRef.get(QueryEmbeddingCache).stats()).toEqual({ size: 0, hits: 0, misses: 0 });
    await moduleRef.close();
  });

  it('fails the boot when the configured model is missing, naming the path', async () => {
    const moduleRef = await compile({ EMBEDDING_MODEL: 'glove-sif-100d' });

    await expect(moduleRef.init()).rejects.toThrow(join(modelsDir, 'glove-sif-100d'));
  });
});
