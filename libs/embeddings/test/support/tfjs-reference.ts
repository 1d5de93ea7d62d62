import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(__dirname, '../../../..');

/**
 * Installs TF.js (the reference runtime of USE-lite, not a dependency) into `.cache/tfjs` if the
 * project has no copy yet: scripts/embedding-model/tfjs-reference.mjs, as a user would run it.
 */
export function ensureTfjsReference(): void {
  const install = spawnSync(process.execPath, ['scripts/embedding-model/tfjs-reference.mjs'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (install.status !== 0) {
    throw new Error(`installing TF.js failed (${install.status}): ${install.stderr}`);
  }
}
