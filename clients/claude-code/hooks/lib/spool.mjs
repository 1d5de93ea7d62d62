// The local queue of what is still to be sent: one small JSON file per record in
// `<spool dir>/queue`, named so that sorting by name is oldest first.
//
// Why files and renames instead of one appended file and a lock: hooks of one agent run
// concurrently (Claude Code runs matching hooks in parallel; async PostToolUse hooks overlap), and
// a hook can be killed at any point. Writing to a temporary name and renaming makes a record
// appear whole or not at all; claiming a record renames it (only one process wins a rename), so
// two hooks never send the same record at once; a record is deleted only after the service
// accepted it, and put back (renamed to its name again) when the send failed or the hook ran out
// of time. A claim left by a hook that died is taken back once its process is gone or it is old.

import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const RECORD = /^\d{15}-\d{7}-\d{4}-[0-9a-f]{6}\.json$/;
const CLAIMED = /^(.+\.json)\.claimed-(\d+)-(\d+)$/;
/** Past these the oldest records are dropped, so a service that stays away cannot fill the disk. */
const MAX_RECORDS = 5000;
const MAX_AGE_MS = 14 * 24 * 3600 * 1000;

let sequence = 0;

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error?.code === 'EPERM';
  }
}

export class Spool {
  /** `staleMs`: a claim older than this is abandoned even if a process with its pid runs. */
  constructor(spoolDir, log, staleMs) {
    this.dir = join(spoolDir, 'queue');
    this.log = log;
    this.staleMs = staleMs;
    /** name → claimed path, for the records this process holds. */
    this.claims = new Map();
  }

  /** Writes a record; answers its name (undefined when the disk refused it). */
  enqueue(record) {
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      sequence = (sequence + 1) % 10000;
      const name = [
        String(Date.now()).padStart(15, '0'),
        String(process.pid % 1e7).padStart(7, '0'),
        String(sequence).padStart(4, '0'),
        `${randomBytes(3).toString('hex')}.json`,
      ].join('-');
      const temporary = join(this.dir, `.${name}.tmp`);
      writeFileSync(temporary, JSON.stringify(record), { mode: 0o600, flag: 'wx' });
      renameSync(temporary, join(this.dir, name));
      return name;
    } catch (error) {
      this.log('could not spool a record', error);
      return undefined;
    }
  }

  /** Names of the records waiting, oldest first (after taking back abandoned claims and trimming). */
  pending() {
    let entries;
    try {
      entries = readdirSync(this.dir);
    } catch {
      return [];
    }
    const now = Date.now();
    const names = [];
    for (const entry of entries) {
      const claimed = CLAIMED.exec(entry);
      if (claimed) {
        const [, name, pid, at] = claimed;
        const abandoned =
          Number(pid) !== process.pid && (now - Number(at) > this.staleMs || !isAlive(Number(pid)));
        if (abandoned && this.rename(entry, name)) names.push(name);
      } else if (RECORD.test(entry)) {
        names.push(entry);
      }
    }
    names.sort();
    const tooOld = names.filter((name) => now - Number(name.slice(0, 15)) > MAX_AGE_MS);
    const tooMany = names.length - tooOld.length - MAX_RECORDS;
    const dropped = [...tooOld, ...names.slice(tooOld.length, tooOld.length + Math.max(0, tooMany))];
    if (dropped.length > 0) {
      dropped.forEach((name) => this.unlink(name));
      this.log(`dropped ${dropped.length} spooled record(s): too old or over ${MAX_RECORDS}`);
    }
    return names.slice(dropped.length);
  }

  /** Reads a waiting record without claiming it (to see whether it can join a batch). */
  peek(name) {
    try {
      return JSON.parse(readFileSync(join(this.dir, name), 'utf8'));
    } catch {
      return undefined;
    }
  }

  /** Takes a record for this process; undefined when another process was first (or it is unreadable). */
  claim(name) {
    const claimed = `${name}.claimed-${process.pid}-${Date.now()}`;
    if (!this.rename(name, claimed)) return undefined;
    this.claims.set(name, claimed);
    try {
      return JSON.parse(readFileSync(join(this.dir, claimed), 'utf8'));
    } catch (error) {
      this.log(`dropped unreadable spool record ${name}`, error);
      this.remove(name);
      return undefined;
    }
  }

  /** The service has it: delete the record. */
  remove(name) {
    const claimed = this.claims.get(name);
    this.claims.delete(name);
    if (claimed) this.unlink(claimed);
  }

  /** Not sent: put the record back for a later run. */
  release(name) {
    const claimed = this.claims.get(name);
    this.claims.delete(name);
    if (claimed) this.rename(claimed, name);
  }

  /** Puts back everything this process still holds (on the way out, also when out of time). */
  releaseAll() {
    for (const name of [...this.claims.keys()]) this.release(name);
  }

  rename(from, to) {
    try {
      renameSync(join(this.dir, from), join(this.dir, to));
      return true;
    } catch {
      return false;
    }
  }

  unlink(name) {
    try {
      unlinkSync(join(this.dir, name));
    } catch {
      // Already gone.
    }
  }
}
