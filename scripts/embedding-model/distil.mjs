// Builds a static embedding model distilled from Universal Sentence Encoder lite (model2vec-style):
// every vocabulary word is embedded alone by USE-lite at install time, the word vectors are
// SIF-weighted with their common component removed (sif.mjs), and the table is written as the
// same Gather-only ONNX folder as glove-sif-100d, so transformers.js serves it with mean pooling.
// Cached by a stamp of its inputs, like the GloVe build. See docs/embeddings.md.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageManifest, selectVocabulary, stampMatches, summarise, writeModelFolder } from './build.mjs';
import { GLOVE_PACKAGE, GLOVE_VERSION, locateGlovePackage } from './glove-reader.mjs';
import { buildSifTable, harmonicNumber } from './sif.mjs';
import { tfjsVersion } from './tfjs-reference.mjs';
import { SPECIAL_TOKENS, MODEL_MAX_LENGTH } from './tokenizer-files.mjs';
import { loadUseLiteTeacher, locateUseLitePackage, USE_LITE_PACKAGE } from './use-lite-teacher.mjs';

export const DISTILLED_MODEL_NAME = 'use-lite-distilled-512d';
export const DISTILLED_VOCAB_SIZE = 50_000;
const BUILDER_VERSION = '1';
const TEACHER_BATCH = 512;
const BUILDER_SOURCES = [
  'distil.mjs',
  'build.mjs',
  'glove-reader.mjs',
  'onnx-encoding.mjs',
  'onnx-model.mjs',
  'sif.mjs',
  'tokenizer-files.mjs',
  'use-lite-teacher.mjs',
];

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

export async function buildDistilledModel({
  modelsDir,
  name = DISTILLED_MODEL_NAME,
  vocabSize = DISTILLED_VOCAB_SIZE,
  a = 1e-3,
  force = false,
  log = () => {},
}) {
  if (!Number.isInteger(vocabSize) || vocabSize < 1) {
    throw new Error(`vocabulary size must be a positive integer, got ${vocabSize}`);
  }
  const startedAt = performance.now();
  const target = join(modelsDir, name);
  const teacherPackage = locateUseLitePackage(root);
  const stamp = distilStamp({ glove: { version: GLOVE_VERSION }, teacherPackage, vocabSize, a });
  if (!force && stampMatches(target, stamp)) {
    return summarise({ target, stamp, cached: true, seconds: (performance.now() - startedAt) / 1000 });
  }

  log(`building ${name}: ${vocabSize} words embedded one by one with ${USE_LITE_PACKAGE} …`);
  // The word list (frequency order) comes from the GloVe package; its vectors are not used.
  const glove = locateGlovePackage(root, log);
  const { words, ranks, sourceSize } = await selectVocabulary(glove.dataPath, vocabSize);
  const teacher = await loadUseLiteTeacher(root, log);
  const dimensions = teacher.dimensions;
  const vectors = new Float64Array(words.length * dimensions);
  for (let start = 0; start < words.length; start += TEACHER_BATCH) {
    const batch = words.slice(start, start + TEACHER_BATCH);
    const rows = await teacher.embed(batch);
    rows.forEach((row, i) => vectors.set(unit(row), (start + i) * dimensions));
    if ((start / TEACHER_BATCH) % 20 === 19) log(`  ${start + batch.length} / ${words.length} words`);
  }
  teacher.dispose();

  const { table } = buildSifTable({
    vectors,
    ranks,
    specialRows: SPECIAL_TOKENS.length,
    dimensions,
    a,
    harmonic: harmonicNumber(sourceSize),
  });
  const rows = SPECIAL_TOKENS.length + words.length;
  const metadata = {
    builder_version: BUILDER_VERSION,
    source: `${USE_LITE_PACKAGE}@${teacherPackage.version} over ${GLOVE_PACKAGE}@${glove.version} words`,
    vocabulary: String(words.length),
    sif_a: String(a),
  };
  writeModelFolder({ target, stamp, words, table, rows, dimensions, metadata });
  return summarise({ target, stamp, cached: false, seconds: (performance.now() - startedAt) / 1000 });
}

function unit(row) {
  let sum = 0;
  for (const value of row) sum += value * value;
  const norm = Math.sqrt(sum) || 1;
  return Array.from(row, (value) => value / norm);
}

function distilStamp({ glove, teacherPackage, vocabSize, a }) {
  const hash = createHash('sha256');
  for (const file of BUILDER_SOURCES) hash.update(readFileSync(join(here, file)));
  const version = (name) => `${name}@${packageManifest(name).version}`;
  return {
    builder: `distil-${BUILDER_VERSION}`,
    builderSha256: hash.digest('hex'),
    source: `${USE_LITE_PACKAGE}@${teacherPackage.version}`,
    words: `${GLOVE_PACKAGE}@${glove.version}`,
    // The teacher's arithmetic (WASM kernels) and the tokenizer's normaliser shape the table.
    runtime: [
      tfjsVersion(root, '@tensorflow/tfjs-core'),
      tfjsVersion(root, '@tensorflow/tfjs-backend-wasm'),
      version('@huggingface/transformers'),
    ],
    parameters: { vocabSize, sifA: a, modelMaxLength: MODEL_MAX_LENGTH },
  };
}
