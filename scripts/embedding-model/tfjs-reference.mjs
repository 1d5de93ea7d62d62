#!/usr/bin/env node
// TF.js, the reference runtime of the default model (use-lite-512d), installed on demand.
//
// The service embeds with the ONNX build of use-lite-512d on onnxruntime (written at install by
// build-embedding-model.mjs from the TF.js weights, which need no TF.js to read). TF.js itself
// (@tensorflow/tfjs-core, -converter, -backend-wasm, -backend-cpu: ≈90 MB) is needed only by:
//   - the equality tests, which keep the TF.js graph as the reference the ONNX vectors must match;
//   - building use-lite-distilled-512d (USE-lite is its teacher), a non-default model;
//   - the fallback runtime when the ONNX build is missing, and the embedder bench's `--runtime tfjs`.
// So it is not a dependency: the first of those installs the exact versions locked in
// scripts/embedding-model/tfjs-reference/ (package.json + package-lock.json, `npm ci`) into
// `<root>/.cache/tfjs` (gitignored), once, from the npm registry. A copy the project resolves itself
// (an `npm install @tensorflow/tfjs-core …` into node_modules) is used as it is.
//
//   node scripts/embedding-model/tfjs-reference.mjs          # install (if missing) and print where
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const LOCK_FOLDER = join(here, 'tfjs-reference');
export const TFJS_PACKAGES = [
  '@tensorflow/tfjs-core',
  '@tensorflow/tfjs-converter',
  '@tensorflow/tfjs-backend-wasm',
];

/** `<root>/.cache/tfjs`: where the on-demand copy lives. */
export function tfjsCacheFolder(root) {
  return join(root, '.cache', 'tfjs');
}

function resolvesAll(require) {
  try {
    for (const name of TFJS_PACKAGES) require.resolve(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * A `require` that resolves the TF.js packages: the project's own if it has them, else the
 * on-demand copy, installed first when `install` is true (else null when there is none).
 */
export function requireTfjs(root, { install = true, log = () => {} } = {}) {
  const own = createRequire(join(root, 'package.json'));
  if (resolvesAll(own)) return own;
  const cache = tfjsCacheFolder(root);
  const cached = createRequire(join(cache, 'package.json'));
  if (resolvesAll(cached)) return cached;
  if (!install) return null;
  log(`installing TF.js (the reference runtime, once) into ${cache} …`);
  // A copy that does not resolve (an interrupted or older install) is replaced.
  rmSync(cache, { recursive: true, force: true });
  // Into a fresh folder renamed into place, so that two processes installing at once (parallel
  // test files) never see a half-installed copy: the first rename wins, the other is dropped.
  const staging = `${cache}.${process.pid}.${Date.now()}`;
  mkdirSync(staging, { recursive: true });
  try {
    for (const file of ['package.json', 'package-lock.json']) {
      copyFileSync(join(LOCK_FOLDER, file), join(staging, file));
    }
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
      cwd: staging,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    mkdirSync(dirname(cache), { recursive: true });
    try {
      renameSync(staging, cache);
    } catch (error) {
      if (!resolvesAll(cached)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  if (!resolvesAll(cached)) throw new Error(`TF.js did not install into ${cache}`);
  return cached;
}

/**
 * `name@version` of a TF.js package as it is (or will be) used: the project's own copy if it has one,
 * else the version locked for the on-demand copy. Build stamps name it.
 */
export function tfjsVersion(root, name) {
  const require = requireTfjs(root, { install: false });
  if (require) {
    return `${name}@${JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')).version}`;
  }
  const locked = JSON.parse(readFileSync(join(LOCK_FOLDER, 'package.json'), 'utf8'));
  return `${name}@${locked.dependencies[name]}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(here, '..', '..');
  const require = requireTfjs(root, { log: (line) => console.error(line) });
  console.log(dirname(require.resolve('@tensorflow/tfjs-core/package.json')));
}
