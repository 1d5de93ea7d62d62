#!/usr/bin/env node
// Records what `GET /version` and the `memsvc_build_info` metric report about a build: the git
// commit (BUILD_COMMIT when set, as in an image build without .git; else `git rev-parse HEAD`) and
// the build time, in dist/build-info.json. Run after `nest build` (npm run build, the image build).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function gitCommit() {
  const result = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() || null : null;
}

export function writeBuildInfo() {
  const commit = process.env.BUILD_COMMIT?.trim() || gitCommit();
  mkdirSync(join(root, 'dist'), { recursive: true });
  const info = { commit, built_at: new Date().toISOString() };
  writeFileSync(join(root, 'dist', 'build-info.json'), `${JSON.stringify(info)}\n`);
  return info;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) writeBuildInfo();
