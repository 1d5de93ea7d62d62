#!/usr/bin/env node
// Downloads a Hugging Face feature-extraction model (ONNX export, e.g. Xenova/all-MiniLM-L6-v2)
// into MODELS_DIR. Meant for the Docker image build only — the one place where a download is
// allowed, so it refuses to run unless EMBEDDING_ALLOW_REMOTE=true is set for this command; the
// running service then loads from MODELS_DIR with EMBEDDING_ALLOW_REMOTE=false.
//
//   EMBEDDING_ALLOW_REMOTE=true MODELS_DIR=/app/models \
//     node scripts/embedding-model/download-hub-model.mjs Xenova/all-MiniLM-L6-v2
//
// Fetches both the float (onnx/model.onnx) and the int8 (onnx/model_quantized.onnx) weights so
// EMBEDDING_QUANTIZED can be switched without a rebuild, then embeds a probe text from the
// downloaded files with remote loading switched off to prove the folder is complete.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'models-dir': { type: 'string' },
    dtype: { type: 'string', multiple: true },
  },
});
const modelId = positionals[0];
if (!modelId || positionals.length !== 1) {
  process.stderr.write(
    'usage: download-hub-model.mjs <org/name> [--models-dir DIR] [--dtype fp32 --dtype q8]\n',
  );
  process.exit(2);
}
if (process.env.EMBEDDING_ALLOW_REMOTE !== 'true') {
  process.stderr.write('[model] refusing to download: set EMBEDDING_ALLOW_REMOTE=true (image build only)\n');
  process.exit(2);
}
const modelsDir = resolve(values['models-dir'] ?? process.env.MODELS_DIR ?? './models');
const dtypes = values.dtype ?? ['fp32', 'q8'];
const { env, pipeline } = await import('@huggingface/transformers');

// The transformers.js file cache stores `<cacheDir>/<model id>/<file>`, which is exactly where
// `env.localModelPath` makes the service look: the cache *is* the models folder.
env.localModelPath = modelsDir;
env.cacheDir = modelsDir;
env.allowLocalModels = true;

try {
  for (const dtype of dtypes) {
    env.allowRemoteModels = true;
    const startedAt = performance.now();
    const download = await pipeline('feature-extraction', modelId, { dtype });
    await download.dispose();

    env.allowRemoteModels = false;
    const offline = await pipeline('feature-extraction', modelId, { dtype, local_files_only: true });
    const probe = await offline('probe sentence', { pooling: 'mean', normalize: true });
    await offline.dispose();
    const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
    process.stderr.write(`[model] ${modelId} (${dtype}) ready in ${seconds} s: ${probe.dims[1]}-d vectors\n`);
  }
  const folder = join(modelsDir, ...modelId.split('/'));
  for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) {
    if (!existsSync(join(folder, file)))
      throw new Error(`${join(folder, file)} is missing after the download`);
  }
  process.stderr.write(`[model] stored in ${folder}\n`);
} catch (error) {
  process.stderr.write(
    `[model] download of ${modelId} failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
