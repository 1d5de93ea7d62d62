import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';

export const DATA_DIR_LOCK_FILE = 'pgdata.lock';

export class DataDirLockedError extends Error {
  readonly code = 'EMBEDDED_DATA_DIR_LOCKED';

  constructor(
    readonly lockPath: string,
    readonly holder: LockHolder,
  ) {
    const who =
      holder.pid > 0 ? `process ${holder.pid} on ${holder.host} (since ${holder.since})` : 'another process';
    super(
      `The embedded database in ${dirname(lockPath)} is already in use by ${who}. ` +
        `Stop that process or point DATA_DIR at another directory; ` +
        `if you are sure nothing uses it, delete ${lockPath}.`,
    );
    this.name = 'DataDirLockedError';
  }
}

export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
}

const UNKNOWN_HOLDER: LockHolder = { pid: 0, host: 'unknown', since: 'unknown' };

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

/**
 * PGlite runs Postgres in single-user mode and writes no postmaster.pid, so two processes
 * opening the same directory would both write to it and corrupt it. This lock file makes the
 * second one fail fast instead. A lock left behind by a crashed process (its pid is gone on
 * this host) is taken over.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, DATA_DIR_LOCK_FILE);
  const me: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };

  // Two attempts: the second one follows the removal of a stale lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, JSON.stringify(me));
      } finally {
        closeSync(fd);
      }
      return lockHandle(path);
    } catch (error) {
      if (!isErrno(error, 'EEXIST')) throw error;
      // An unreadable lock may be one another process is writing right now: treat it as held.
      const holder = readHolder(path) ?? UNKNOWN_HOLDER;
      if (holder === UNKNOWN_HOLDER || isAlive(holder)) throw new DataDirLockedError(path, holder);
      // Stale (its process is gone): remove it and retry once. Two processes taking over the
      // same stale lock at the same instant is a race we accept for a single-developer mode.
      unlinkQuietly(path);
    }
  }
  throw new DataDirLockedError(path, readHolder(path) ?? UNKNOWN_HOLDER);
}

function lockHandle(path: string): DataDirLock {
  let released = false;
  // A crash (uncaught exception, process.exit) still fires 'exit'; leave no lock behind then.
  const onExit = (): void => release();
  process.once('exit', onExit);
  function release(): void {
    if (released) return;
    released = true;
    process.removeListener('exit', onExit);
    const holder = readHolder(path);
    if (holder?.pid === process.pid && holder.host === hostname()) unlinkQuietly(path);
  }
  return { path, release };
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { pid, host, since } = parsed as Record<string, unknown>;
    if (typeof pid !== 'number' || typeof host !== 'string') return undefined;
    return { pid, host, since: typeof since === 'string' ? since : 'unknown' };
  } catch {
    return undefined;
  }
}

function isAlive(holder: LockHolder): boolean {
  // A pid from another host (a shared volume) cannot be checked: assume it is alive.
  if (holder.host !== hostname()) return true;
  if (holder.pid === process.pid) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return isErrno(error, 'EPERM');
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
  }
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
