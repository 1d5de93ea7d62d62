#!/usr/bin/env node
// Builds a static offline embedding model into MODELS_DIR: glove-sif-100d (the default here; npm
// install, test and start build it) or, on request, use-lite-distilled-512d. Plain Node ESM so it
// runs before the TypeScript build. Cached: a second run with the same package versions and
// parameters only checks the stamp. See docs/embeddings.md. (The default service model,
// use-lite-512d, needs no build: it is read from its npm package.)
//
//   node scripts/build-embedding-model.mjs [--model glove-sif-100d|use-lite-distilled-512d]
//                                          [--models-dir DIR] [--vocab-size N] [--sif-a A]
//                                          [--name NAME] [--force] [--json] [--quiet]
// Environment fallbacks: MODELS_DIR (default ./models), EMBEDDING_VOCAB_SIZE.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  buildEmbeddingModel,
  DEFAULT_MODEL_NAME,
  DEFAULT_SIF_A,
  DEFAULT_VOCAB_SIZE,
} from './embedding-model/build.mjs';
import {
  buildDistilledModel,
  DISTILLED_MODEL_NAME,
  DISTILLED_VOCAB_SIZE,
} from './embedding-model/distil.mjs';

const BUILDERS = {
  [DEFAULT_MODEL_NAME]: { build: buildEmbeddingModel, vocabSize: DEFAULT_VOCAB_SIZE },
  [DISTILLED_MODEL_NAME]: { build: buildDistilledModel, vocabSize: DISTILLED_VOCAB_SIZE },
};

const { values } = parseArgs({
  options: {
    model: { type: 'string', default: DEFAULT_MODEL_NAME },
    'models-dir': { type: 'string' },
    'vocab-size': { type: 'string' },
    'sif-a': { type: 'string' },
    name: { type: 'string' },
    force: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
  },
});

const builder = BUILDERS[values.model];
if (!builder) {
  process.stderr.write(
    `[model] unknown --model ${values.model}: one of ${Object.keys(BUILDERS).join(', ')}\n`,
  );
  process.exit(2);
}
const modelsDir = resolve(values['models-dir'] ?? process.env.MODELS_DIR ?? './models');
const vocabSize = Number(values['vocab-size'] ?? process.env.EMBEDDING_VOCAB_SIZE ?? builder.vocabSize);
const a = Number(values['sif-a'] ?? DEFAULT_SIF_A);
// Progress goes to stderr so that --json output on stdout stays parseable.
const log = (line) => {
  if (!values.quiet) process.stderr.write(`[model] ${line}\n`);
};

try {
  const summary = await builder.build({
    modelsDir,
    name: values.name ?? values.model,
    vocabSize,
    a,
    force: values.force,
    log,
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } else {
    log(describe(summary));
  }
} catch (error) {
  process.stderr.write(`[model] build failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

function describe(summary) {
  const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
  const { files } = summary;
  if (summary.cached)
    return `${summary.path} is up to date (${summary.vocabulary} words, ${summary.dimensions}-d)`;
  return [
    `built ${summary.path} in ${summary.seconds.toFixed(1)} s:`,
    `${summary.vocabulary} words, ${summary.dimensions}-d, SIF a=${summary.stamp.parameters.sifA};`,
    `onnx/model.onnx ${mb(files['onnx/model.onnx'])}, onnx/model_quantized.onnx ${mb(files['onnx/model_quantized.onnx'])}, tokenizer.json ${mb(files['tokenizer.json'])}`,
  ].join(' ');
}
