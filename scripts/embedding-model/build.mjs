// Builds the default offline embedding model: GloVe word vectors → SIF-weighted static embedding
// table → transformers.js-loadable folder. Deterministic and cached by a stamp of its inputs.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { locateGlovePackage, readGloveVectors, GLOVE_PACKAGE, GLOVE_VERSION } from './glove-reader.mjs';
import { encodeFloatModel, encodeQuantizedModel } from './onnx-model.mjs';
import { buildSifTable, harmonicNumber } from './sif.mjs';
import {
  createWordNormaliser,
  modelConfigJson,
  MODEL_MAX_LENGTH,
  SPECIAL_TOKENS,
  tokenizerConfigJson,
  tokenizerJson,
} from './tokenizer-files.mjs';

export const DEFAULT_MODEL_NAME = 'glove-sif-100d';
export const DEFAULT_VOCAB_SIZE = 200_000;
export const DEFAULT_SIF_A = 1e-3;
const BUILDER_VERSION = '1';
export const STAMP_FILE = 'build-stamp.json';
const OUTPUT_FILES = [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'onnx/model.onnx',
  'onnx/model_quantized.onnx',
];
// The stamp hashes the code that shapes the output, so editing the builder rebuilds the model.
const BUILDER_SOURCES = [
  'build.mjs',
  'glove-reader.mjs',
  'onnx-encoding.mjs',
  'onnx-model.mjs',
  'sif.mjs',
  'tokenizer-files.mjs',
];

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

/**
 * Builds `<modelsDir>/<name>` unless it already holds a build with the same stamp.
 * Returns a summary; `log` receives progress lines.
 */
export async function buildEmbeddingModel({
  modelsDir,
  name = DEFAULT_MODEL_NAME,
  vocabSize = DEFAULT_VOCAB_SIZE,
  a = DEFAULT_SIF_A,
  force = false,
  log = () => {},
}) {
  if (!Number.isInteger(vocabSize) || vocabSize < 1) {
    throw new Error(`vocabulary size must be a positive integer, got ${vocabSize}`);
  }
  if (!(a > 0)) throw new Error(`SIF parameter a must be positive, got ${a}`);
  const startedAt = performance.now();
  const target = join(modelsDir, name);
  const stamp = buildStamp({ source: { version: GLOVE_VERSION }, vocabSize, a });

  if (!force && stampMatches(target, stamp)) {
    return summarise({ target, stamp, cached: true, seconds: (performance.now() - startedAt) / 1000 });
  }
  // The word vectors are fetched only when a build needs them.
  const source = locateGlovePackage(root, log);
  if (source.version !== GLOVE_VERSION) {
    throw new Error(`${GLOVE_PACKAGE} ${source.version} found, the build needs ${GLOVE_VERSION}`);
  }

  log(`building ${name} from ${GLOVE_PACKAGE}@${source.version} (vocabulary ${vocabSize}, a=${a}) …`);
  const { words, ranks, vectors, dimensions, sourceSize, skipped } = await selectVocabulary(
    source.dataPath,
    vocabSize,
  );
  const harmonic = harmonicNumber(sourceSize);
  const { table } = buildSifTable({
    vectors,
    ranks,
    specialRows: SPECIAL_TOKENS.length,
    dimensions,
    a,
    harmonic,
  });
  const rows = SPECIAL_TOKENS.length + words.length;
  const metadata = {
    builder_version: BUILDER_VERSION,
    source: `${GLOVE_PACKAGE}@${source.version}`,
    vocabulary: String(words.length),
    sif_a: String(a),
  };

  writeModelFolder({ target, stamp, words, table, rows, dimensions, metadata });

  return summarise({
    target,
    stamp,
    cached: false,
    seconds: (performance.now() - startedAt) / 1000,
    extra: { sourceWords: sourceSize, skippedUnreachable: skipped },
  });
}

/**
 * Writes a static-embedding folder (WordLevel tokenizer over `words`, float and int8 Gather
 * models over `table`) next to `target` and swaps it in; the stamp is written last, so a folder
 * with a stamp is complete. Shared by every static model the project builds.
 */
export function writeModelFolder({ target, stamp, words, table, rows, dimensions, metadata }) {
  const staging = `${target}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(join(staging, 'onnx'), { recursive: true });
  const writeJson = (file, value) =>
    writeFileSync(join(staging, file), `${JSON.stringify(value, null, 2)}\n`);
  writeJson('config.json', modelConfigJson({ dimensions, vocabSize: rows, build: stamp.parameters }));
  writeJson('tokenizer_config.json', tokenizerConfigJson());
  // Compact: the vocabulary makes this file megabytes long.
  writeFileSync(
    join(staging, 'tokenizer.json'),
    JSON.stringify(tokenizerJson([...SPECIAL_TOKENS, ...words])),
  );
  writeFileSync(join(staging, 'onnx', 'model.onnx'), encodeFloatModel({ table, rows, dimensions, metadata }));
  writeFileSync(
    join(staging, 'onnx', 'model_quantized.onnx'),
    encodeQuantizedModel({ table, rows, dimensions, metadata }),
  );
  writeJson(STAMP_FILE, stamp); // last: a folder with a stamp is complete
  publish(staging, target, stamp);
}

/** The first `vocabSize` words (by frequency) that the runtime tokenizer can produce whole. */
export async function selectVocabulary(dataPath, vocabSize) {
  const normalise = await createWordNormaliser();
  const header = {};
  const seen = new Set();
  const words = [];
  const ranks = [];
  let vectors;
  let skipped = 0;
  for await (const { word, rank, vector } of readGloveVectors(dataPath, header)) {
    vectors ??= new Float64Array(vocabSize * header.dimensions);
    const token = normalise(word);
    // Unreachable ("e-mail" splits in two) or a less frequent spelling of a kept token ("café").
    if (token === undefined || seen.has(token)) {
      skipped += 1;
      continue;
    }
    seen.add(token);
    vectors.set(vector, words.length * header.dimensions);
    words.push(token);
    ranks.push(rank);
    if (words.length === vocabSize) break;
  }
  const used = vectors.subarray(0, words.length * header.dimensions);
  return { words, ranks, vectors: used, dimensions: header.dimensions, sourceSize: header.size, skipped };
}

function buildStamp({ source, vocabSize, a }) {
  const hash = createHash('sha256');
  for (const file of BUILDER_SOURCES) hash.update(readFileSync(join(here, file)));
  const transformers = packageManifest('@huggingface/transformers');
  return {
    builder: BUILDER_VERSION,
    builderSha256: hash.digest('hex'),
    source: `${GLOVE_PACKAGE}@${source.version}`,
    // Its normaliser decides which words are reachable.
    tokenizerLibrary: `@huggingface/transformers@${transformers.version}`,
    parameters: { vocabSize, sifA: a, modelMaxLength: MODEL_MAX_LENGTH },
  };
}

/** The package's manifest; found from its entry point because its `exports` hide package.json. */
export function packageManifest(name) {
  let dir = dirname(createRequire(join(root, 'package.json')).resolve(name));
  while (!existsSync(join(dir, 'package.json')) || !dir.endsWith(join('node_modules', name))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the package.json of ${name}`);
    dir = parent;
  }
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
}

/** Whether `target` holds a complete build (`files` and a stamp) of exactly `stamp`. */
export function stampMatches(target, stamp, files = OUTPUT_FILES) {
  const stampPath = join(target, STAMP_FILE);
  if (!existsSync(stampPath) || !files.every((file) => existsSync(join(target, file)))) return false;
  try {
    return JSON.stringify(JSON.parse(readFileSync(stampPath, 'utf8'))) === JSON.stringify(stamp);
  } catch {
    return false;
  }
}

/** Swaps the staged folder in; a concurrent builder that finished first wins (same bytes). */
export function publish(staging, target, stamp, files = OUTPUT_FILES) {
  if (stampMatches(target, stamp, files)) {
    rmSync(staging, { recursive: true, force: true });
    return;
  }
  rmSync(target, { recursive: true, force: true });
  renameSync(staging, target);
}

export function summarise({ target, stamp, cached, seconds, extra = {} }) {
  const config = JSON.parse(readFileSync(join(target, 'config.json'), 'utf8'));
  const files = Object.fromEntries(OUTPUT_FILES.map((file) => [file, statSync(join(target, file)).size]));
  return {
    path: target,
    cached,
    seconds,
    dimensions: config.hidden_size,
    vocabulary: config.vocab_size - SPECIAL_TOKENS.length,
    stamp,
    files,
    ...extra,
  };
}
