#!/usr/bin/env node
// Builds the apps before `npm start` / `npm run cli` when the build is missing or older than the
// sources, so a fresh clone needs only `npm install && npm start`.
//
// `nest build api` compiles everything tsconfig.build.json includes in one tsc pass (api, worker,
// cli, libs, migrations) and rewrites the `@app/*` aliases. With rootDir at the repository root
// the entry points are dist/apps/<app>/src/main.js.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeBuildInfo } from './write-build-info.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY_POINTS = [
  ...['api', 'worker', 'cli'].map((app) => join('dist', 'apps', app, 'src', 'main.js')),
  join('dist', 'bench', 'run-bench.js'),
  join('dist', 'bench', 'run-eval.js'),
];
const STAMP = join(root, 'dist', '.build-stamp');
const SOURCE_DIRS = ['apps', 'libs', 'migrations', 'bench'];
// Files that change the output without being sources.
const BUILD_CONFIG = ['tsconfig.json', 'tsconfig.build.json', 'nest-cli.json'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'coverage']);
// The web console is built apart (vite), into dist/ui.
const UI_SOURCES = join(root, 'apps', 'ui');
const UI_ENTRY = join(root, 'dist', 'ui', 'index.html');

/** Why a build is needed, or undefined when the existing one is current. */
function staleReason() {
  const missing = ENTRY_POINTS.filter((entry) => !existsSync(join(root, entry)));
  if (missing.length > 0) return `missing ${missing.join(', ')}`;
  if (!existsSync(STAMP)) return 'no build stamp';
  const builtAt = statSync(STAMP).mtimeMs;
  for (const file of BUILD_CONFIG) {
    const path = join(root, file);
    if (existsSync(path) && statSync(path).mtimeMs > builtAt) return `${file} changed`;
  }
  for (const dir of SOURCE_DIRS) {
    const newer = findNewerSource(join(root, dir), builtAt);
    if (newer) return `${relative(root, newer)} changed`;
  }
  return undefined;
}

function findNewerSource(dir, than) {
  if (!existsSync(dir)) return undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (SKIP_DIRS.has(entry.name) || path === UI_SOURCES) continue;
      const found = findNewerSource(path, than);
      if (found) return found;
    } else if (isCompiledSource(entry.name) && statSync(path).mtimeMs > than) {
      return path;
    }
  }
  return undefined;
}

// Mirrors tsconfig.build.json: specs are excluded from the build, so editing one needs no rebuild.
function isCompiledSource(name) {
  return name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts');
}

/** Why the console needs building, or undefined when dist/ui is current. */
function uiStaleReason() {
  if (!existsSync(UI_SOURCES)) return undefined;
  if (!existsSync(UI_ENTRY)) return 'dist/ui is missing';
  const newer = findNewerFile(UI_SOURCES, statSync(UI_ENTRY).mtimeMs);
  return newer ? `${relative(root, newer)} changed` : undefined;
}

function findNewerFile(dir, than) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = findNewerFile(path, than);
      if (found) return found;
    } else if (statSync(path).mtimeMs > than) {
      return path;
    }
  }
  return undefined;
}

function buildUi(reason) {
  let vite;
  try {
    // vite's package exports do not list its bin script; find it beside its package.json.
    vite = join(dirname(createRequire(join(root, 'package.json')).resolve('vite/package.json')), 'bin', 'vite.js');
  } catch {
    fail(`the web console is out of date (${reason}) but vite is not installed; run \`npm install\` first`);
  }
  process.stderr.write(`[build] ${reason}; building the web console …\n`);
  const config = join('apps', 'ui', 'vite.config.ts');
  const result = spawnSync(process.execPath, [vite, 'build', '-c', config], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  if (result.status !== 0) fail(`vite build failed (exit ${result.status ?? result.signal})`);
}

function nestCli() {
  try {
    return createRequire(join(root, 'package.json')).resolve('@nestjs/cli/bin/nest.js');
  } catch {
    return undefined;
  }
}

function build(reason) {
  const cli = nestCli();
  if (!cli) {
    fail(`the build is out of date (${reason}) but @nestjs/cli is not installed; run \`npm install\` first`);
  }
  // Messages go to stderr: stdout belongs to the command being launched (the CLI prints keys).
  process.stderr.write(`[build] ${reason}; running nest build api …\n`);
  const startedAt = new Date();
  const result = spawnSync(process.execPath, [cli, 'build', 'api'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) {
    fail(`nest build failed (exit ${result.status ?? result.signal}); fix the errors above and retry`);
  }
  const missing = ENTRY_POINTS.filter((entry) => !existsSync(join(root, entry)));
  if (missing.length > 0) fail(`the build did not produce ${missing.join(', ')}`);
  writeBuildInfo();
  // Stamp with the start time: a file saved while tsc ran is newer and triggers the next build.
  writeFileSync(STAMP, `${startedAt.toISOString()}\n`);
  utimesSync(STAMP, startedAt, startedAt);
  process.stderr.write(`[build] done in ${((Date.now() - startedAt.getTime()) / 1000).toFixed(1)} s\n`);
}

function fail(message) {
  process.stderr.write(`[build] ${message}\n`);
  process.exit(1);
}

// An image that ships only dist/ (no sources) has nothing to rebuild from.
const hasSources = SOURCE_DIRS.some((dir) => existsSync(join(root, dir)));
if (hasSources) {
  const reason = staleReason();
  if (reason) build(reason);
  const uiReason = uiStaleReason();
  if (uiReason) buildUi(uiReason);
}
