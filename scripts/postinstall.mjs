#!/usr/bin/env node
// What `npm install` prepares so that the first `npm start` only starts the service: onnxruntime's
// native libraries for this platform only (scripts/prune-native-binaries.mjs), the offline models it
// needs (always), and — in a development install, where the build tools are present — the
// build itself (`scripts/build-if-needed.mjs`, which also runs before every start and rebuilds what
// changed). A production install (`npm ci --omit=dev`, the Docker image's prod-deps stage) has no build
// tools; its build comes from elsewhere.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function run(script, args = []) {
  const result = spawnSync(process.execPath, [join(root, script), ...args], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function installed(request) {
  try {
    createRequire(join(root, 'package.json')).resolve(request);
    return true;
  } catch {
    return false;
  }
}

run(join('scripts', 'prune-native-binaries.mjs'));
run(join('scripts', 'build-embedding-model.mjs'), ['--quiet']);
const buildScript = join('scripts', 'build-if-needed.mjs');
if (
  existsSync(join(root, buildScript)) &&
  installed('@nestjs/cli/bin/nest.js') &&
  installed('vite/package.json')
) {
  run(buildScript);
}
