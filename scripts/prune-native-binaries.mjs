#!/usr/bin/env node
// Keeps only the onnxruntime libraries this machine can load. `onnxruntime-node` ships its
// prebuilt libraries for every platform in one package (linux, darwin and win32, x64 and arm64:
// ≈210 MB); a process loads the one folder `bin/napi-v3/<platform>/<arch>` (its binding.js picks it
// from process.platform and process.arch). The install keeps that folder and removes the others
// (≈170 MB), and replaces the package's second copy of the Linux library (`libonnxruntime.so.1`, a
// byte-identical copy of `libonnxruntime.so.<version>`, ≈21 MB; npm packages cannot hold symlinks)
// with a symlink. A node_modules copied to another platform or CPU needs `npm ci` there, as it would
// for any other native dependency (sharp, usearch).
//
// Likewise the WebAssembly builds of onnxruntime for browsers (`ort-wasm-simd-threaded*.wasm` in
// onnxruntime-web and in transformers.js' dist, ≈54 MB): transformers.js depends on onnxruntime-web
// for its web build, but its Node entries (`exports.node`) import onnxruntime-node and never
// onnxruntime-web. They are removed only while that holds for the installed version (checked here).
//
//   node scripts/prune-native-binaries.mjs [--dry-run]
//
// Run by scripts/postinstall.mjs. Idempotent; a missing package is not an error.
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Size of a folder tree in bytes (regular files; symlinks count as nothing). */
function treeBytes(path) {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return 0;
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, entry) => sum + treeBytes(join(path, entry)), 0);
}

function sameContent(a, b) {
  if (statSync(a).size !== statSync(b).size) return false;
  const digest = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');
  return digest(a) === digest(b);
}

/**
 * Removes `bin/napi-v3/<platform>/<arch>` folders other than this process's, and turns the
 * duplicate `libonnxruntime.so.1` into a symlink. Returns what it did (bytes freed, paths removed).
 */
export function pruneOnnxruntimeNode({
  modulesDir = join(root, 'node_modules'),
  platform = process.platform,
  arch = process.arch,
  dryRun = false,
} = {}) {
  const binRoot = join(modulesDir, 'onnxruntime-node', 'bin', 'napi-v3');
  const result = { freedBytes: 0, removed: [] };
  if (!existsSync(binRoot)) return result;
  const keep = join(binRoot, platform, arch);
  if (!existsSync(keep)) {
    // Nothing here this process can load: leave the package as npm installed it.
    return result;
  }
  for (const os of readdirSync(binRoot)) {
    for (const cpu of readdirSync(join(binRoot, os))) {
      const folder = join(binRoot, os, cpu);
      if (folder === keep || !lstatSync(folder).isDirectory()) continue;
      result.freedBytes += treeBytes(folder);
      result.removed.push(folder);
      if (!dryRun) rmSync(folder, { recursive: true, force: true });
    }
    if (!dryRun && os !== platform && readdirSync(join(binRoot, os)).length === 0) {
      rmSync(join(binRoot, os), { recursive: true, force: true });
    }
  }
  // libonnxruntime.so.1 (the soname the binding links against) beside libonnxruntime.so.1.<x>.<y>.
  const soname = join(keep, 'libonnxruntime.so.1');
  const versioned = readdirSync(keep).find((file) => /^libonnxruntime\.so\.1\.\d+\.\d+$/.test(file));
  if (
    versioned &&
    existsSync(soname) &&
    !lstatSync(soname).isSymbolicLink() &&
    sameContent(soname, join(keep, versioned))
  ) {
    result.freedBytes += statSync(soname).size;
    result.removed.push(soname);
    if (!dryRun) {
      unlinkSync(soname);
      symlinkSync(versioned, soname);
    }
  }
  return result;
}

const NODE_ENTRIES = ['transformers.node.cjs', 'transformers.node.mjs'];
const WEB_RUNTIME_IMPORT =
  /require\(\s*["']onnxruntime-web["']\s*\)|from\s*["']onnxruntime-web["']|import\(\s*["']onnxruntime-web["']\s*\)/;

/**
 * Removes onnxruntime's browser WebAssembly files (onnxruntime-web/dist/*.wasm and the copy in
 * @huggingface/transformers/dist) when transformers.js' Node entries exist and import no
 * onnxruntime-web. Returns what it did.
 */
export function pruneBrowserWasm({ modulesDir = join(root, 'node_modules'), dryRun = false } = {}) {
  const result = { freedBytes: 0, removed: [] };
  const transformersDist = join(modulesDir, '@huggingface', 'transformers', 'dist');
  const entries = NODE_ENTRIES.map((file) => join(transformersDist, file));
  if (!entries.every((entry) => existsSync(entry))) return result;
  if (entries.some((entry) => WEB_RUNTIME_IMPORT.test(readFileSync(entry, 'utf8')))) return result;
  for (const folder of [join(modulesDir, 'onnxruntime-web', 'dist'), transformersDist]) {
    if (!existsSync(folder)) continue;
    for (const file of readdirSync(folder)) {
      if (!/^ort-wasm.*\.wasm$/.test(file)) continue;
      const path = join(folder, file);
      result.freedBytes += statSync(path).size;
      result.removed.push(path);
      if (!dryRun) rmSync(path, { force: true });
    }
  }
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dryRun = process.argv.includes('--dry-run');
  const verb = dryRun ? 'would free' : 'freed';
  const mb = (bytes) => (bytes / 1048576).toFixed(0);
  const native = pruneOnnxruntimeNode({ dryRun });
  if (native.removed.length > 0) {
    console.log(
      `onnxruntime-node: ${verb} ${mb(native.freedBytes)} MB of native libraries for other platforms (kept ${process.platform}/${process.arch})`,
    );
  }
  const browser = pruneBrowserWasm({ dryRun });
  if (browser.removed.length > 0) {
    console.log(`onnxruntime-web: ${verb} ${mb(browser.freedBytes)} MB of WebAssembly builds for browsers`);
  }
}
