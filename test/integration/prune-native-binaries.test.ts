import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// The install step that keeps only the onnxruntime libraries this machine loads
// (scripts/prune-native-binaries.mjs, run by postinstall), on a node_modules laid out as the
// onnxruntime-node package ships it; and the real install, which must still embed (the service's
// tests do) and must have nothing left for another platform.

type Prune = (options: { modulesDir: string; platform: string; arch: string; dryRun?: boolean }) => {
  freedBytes: number;
  removed: string[];
};
const root = resolve(__dirname, '../..');
const load = async () =>
  (await import(pathToFileURL(join(root, 'scripts/prune-native-binaries.mjs')).href)) as {
    pruneOnnxruntimeNode: Prune;
    pruneBrowserWasm: (options: { modulesDir: string }) => { freedBytes: number; removed: string[] };
  };

describe('pruning onnxruntime-node to this platform', () => {
  let modulesDir: string;
  const bin = () => join(modulesDir, 'onnxruntime-node', 'bin', 'napi-v3');
  const library = Buffer.alloc(4096, 7);

  beforeEach(() => {
    modulesDir = mkdtempSync(join(tmpdir(), 'prune-'));
    for (const [os, cpu] of [
      ['linux', 'x64'],
      ['linux', 'arm64'],
      ['darwin', 'arm64'],
      ['win32', 'x64'],
    ]) {
      const folder = join(bin(), os, cpu);
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'onnxruntime_binding.node'), `${os}-${cpu}`);
    }
    const linux = join(bin(), 'linux', 'x64');
    writeFileSync(join(linux, 'libonnxruntime.so.1.21.0'), library);
    writeFileSync(join(linux, 'libonnxruntime.so.1'), library);
  });
  afterEach(() => rmSync(modulesDir, { recursive: true, force: true }));

  it('keeps the folder of this platform and CPU, removes the others, and links the duplicate library', async () => {
    const { pruneOnnxruntimeNode } = await load();
    const result = pruneOnnxruntimeNode({ modulesDir, platform: 'linux', arch: 'x64' });
    expect(existsSync(join(bin(), 'linux', 'x64', 'onnxruntime_binding.node'))).toBe(true);
    for (const gone of ['linux/arm64', 'darwin', 'win32']) expect(existsSync(join(bin(), gone))).toBe(false);
    const soname = join(bin(), 'linux', 'x64', 'libonnxruntime.so.1');
    expect(lstatSync(soname).isSymbolicLink()).toBe(true);
    expect(readlinkSync(soname)).toBe('libonnxruntime.so.1.21.0');
    expect(readFileSync(soname)).toEqual(library);
    expect(result.freedBytes).toBeGreaterThanOrEqual(library.length);
    // Idempotent: a second run (npm rebuild, a second postinstall) finds nothing to do.
    expect(pruneOnnxruntimeNode({ modulesDir, platform: 'linux', arch: 'x64' }).removed).toEqual([]);
  });

  it('leaves a library alone when the two copies differ', async () => {
    writeFileSync(join(bin(), 'linux', 'x64', 'libonnxruntime.so.1'), Buffer.alloc(4096, 8));
    const { pruneOnnxruntimeNode } = await load();
    pruneOnnxruntimeNode({ modulesDir, platform: 'linux', arch: 'x64' });
    expect(lstatSync(join(bin(), 'linux', 'x64', 'libonnxruntime.so.1')).isSymbolicLink()).toBe(false);
  });

  it('changes nothing where no folder fits this machine, or in a dry run', async () => {
    const { pruneOnnxruntimeNode } = await load();
    expect(pruneOnnxruntimeNode({ modulesDir, platform: 'freebsd', arch: 'x64' }).removed).toEqual([]);
    const dry = pruneOnnxruntimeNode({ modulesDir, platform: 'darwin', arch: 'arm64', dryRun: true });
    expect(dry.removed.length).toBe(3);
    expect(existsSync(join(bin(), 'win32', 'x64'))).toBe(true);
    expect(existsSync(join(bin(), 'linux', 'x64'))).toBe(true);
  });

  it('left the installed package with this platform only', () => {
    const installed = join(root, 'node_modules', 'onnxruntime-node', 'bin', 'napi-v3');
    expect(existsSync(join(installed, process.platform, process.arch))).toBe(true);
    const others = ['linux', 'darwin', 'win32']
      .flatMap((os) => ['x64', 'arm64'].map((cpu) => join(os, cpu)))
      .filter((folder) => folder !== join(process.platform, process.arch));
    for (const folder of others) expect(existsSync(join(installed, folder)), folder).toBe(false);
  });
});

describe("pruning onnxruntime's browser WebAssembly", () => {
  let modulesDir: string;
  const web = () => join(modulesDir, 'onnxruntime-web', 'dist');
  const transformers = () => join(modulesDir, '@huggingface', 'transformers', 'dist');

  beforeEach(() => {
    modulesDir = mkdtempSync(join(tmpdir(), 'prune-web-'));
    mkdirSync(web(), { recursive: true });
    mkdirSync(transformers(), { recursive: true });
    writeFileSync(join(web(), 'ort-wasm-simd-threaded.wasm'), Buffer.alloc(2048));
    writeFileSync(join(web(), 'ort-wasm-simd-threaded.jsep.wasm'), Buffer.alloc(2048));
    writeFileSync(join(web(), 'ort.node.min.js'), 'module.exports = {};');
    writeFileSync(join(transformers(), 'ort-wasm-simd-threaded.jsep.wasm'), Buffer.alloc(2048));
    writeFileSync(join(transformers(), 'transformers.node.cjs'), 'const ort = require("onnxruntime-node");');
    writeFileSync(join(transformers(), 'transformers.node.mjs'), 'import * as ort from "onnxruntime-node";');
  });
  afterEach(() => rmSync(modulesDir, { recursive: true, force: true }));

  it('removes the .wasm files while the Node entries of transformers.js import onnxruntime-node only', async () => {
    const { pruneBrowserWasm } = await load();
    expect(pruneBrowserWasm({ modulesDir }).removed).toHaveLength(3);
    expect(existsSync(join(web(), 'ort-wasm-simd-threaded.wasm'))).toBe(false);
    expect(existsSync(join(transformers(), 'ort-wasm-simd-threaded.jsep.wasm'))).toBe(false);
    expect(existsSync(join(web(), 'ort.node.min.js'))).toBe(true);
  });

  it('keeps them when a Node entry imports onnxruntime-web', async () => {
    writeFileSync(join(transformers(), 'transformers.node.mjs'), 'import * as web from "onnxruntime-web";');
    const { pruneBrowserWasm } = await load();
    expect(pruneBrowserWasm({ modulesDir }).removed).toEqual([]);
    expect(existsSync(join(web(), 'ort-wasm-simd-threaded.wasm'))).toBe(true);
  });

  it('holds for the installed transformers.js, whose Node entries load without onnxruntime-web', async () => {
    const installed = join(root, 'node_modules', '@huggingface', 'transformers', 'dist');
    for (const entry of ['transformers.node.cjs', 'transformers.node.mjs']) {
      expect(readFileSync(join(installed, entry), 'utf8')).not.toMatch(
        /require\("onnxruntime-web"\)|from "onnxruntime-web"/,
      );
    }
    expect(
      existsSync(join(root, 'node_modules', 'onnxruntime-web', 'dist', 'ort-wasm-simd-threaded.wasm')),
    ).toBe(false);
    const { env } = await import('@huggingface/transformers');
    expect(env.backends.onnx).toBeDefined();
  });
});
