// What a hook remembers about a session for later hooks of the same run: the commit the session
// started at and the digest of the last code event it reported. One small JSON file per session in
// `<spool dir>/sessions`, written to a temporary name and renamed, so a reader sees it whole or not
// at all. Files of sessions untouched for 14 days are removed.

import {
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

const MAX_AGE_MS = 14 * 24 * 3600 * 1000;
const NAME = /^[0-9a-f-]{36}\.json$/;

const stateDir = (config) => join(config.spoolDir, 'sessions');

/** The session's state (`{}` when there is none or it is unreadable). */
export function readSessionState(config, session) {
  try {
    const state = JSON.parse(readFileSync(join(stateDir(config), `${session}.json`), 'utf8'));
    return state && typeof state === 'object' && !Array.isArray(state) ? state : {};
  } catch {
    return {};
  }
}

/** Merges `patch` into the session's state; answers whether it was written. */
export function updateSessionState(config, log, session, patch) {
  const dir = stateDir(config);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const state = { ...readSessionState(config, session), ...patch, updated_at: new Date().toISOString() };
    const temporary = join(dir, `.${session}.${process.pid}.tmp`);
    writeFileSync(temporary, JSON.stringify(state), { mode: 0o600 });
    renameSync(temporary, join(dir, `${session}.json`));
    return true;
  } catch (error) {
    log('could not write the session state', error);
    return false;
  }
}

/** Removes the state of sessions untouched for 14 days. */
export function pruneSessionStates(config) {
  const dir = stateDir(config);
  const now = Date.now();
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!NAME.test(name)) continue;
    try {
      if (now - statSync(join(dir, name)).mtimeMs > MAX_AGE_MS) unlinkSync(join(dir, name));
    } catch {
      // Gone meanwhile.
    }
  }
}
