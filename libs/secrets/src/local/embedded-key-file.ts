import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** File in DATA_DIR holding embedded mode's generated encryption key (64 hex characters). */
export const EMBEDDED_KEY_FILE = 'secret-store.key';

/**
 * Embedded mode's key when MEMORY_ENCRYPTION_KEY is unset: generated once, kept next to the
 * database with owner-only permissions, so `npm start` can keep secrets encrypted with nothing
 * configured. A team install sets MEMORY_ENCRYPTION_KEY or Vault instead (and keeps the key away
 * from the database's backups).
 */
export function readOrCreateEmbeddedKey(dataDir: string): { key: string; created: boolean } {
  const path = join(dataDir, EMBEDDED_KEY_FILE);
  try {
    const key = readFileSync(path, 'utf8').trim();
    if (/^[0-9a-f]{64}$/i.test(key)) return { key, created: false };
    throw new Error(
      `${path} does not hold a 64-hex-character key; restore it or remove it (secrets encrypted with it are then lost)`,
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('hex');
  // `wx`: if another process created it meanwhile, fail instead of replacing its key.
  writeFileSync(path, `${key}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
  return { key, created: true };
}
