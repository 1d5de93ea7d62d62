// What the hooks send, and sending it: records are spooled first, then delivered oldest first
// within the hook's time budget. A record leaves the spool only once the service accepted it
// (or refused it for good); every event carries its own id, so a resend after a lost answer
// stores nothing twice (the service counts it as a duplicate).

import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { callApi, isOk, isRetryable } from './http.mjs';

/** The service takes at most 100 events and 256 KiB of payloads per batch; stay under both. */
const MAX_BATCH_EVENTS = 100;
const MAX_BATCH_BYTES = 200 * 1024;
/** Below this much time left a send is not started (it could only time out). */
const MIN_SEND_MS = 25;

const now = () => new Date().toISOString();

/** What the service needs to start the session late (when a record finds it missing). */
function lateStart(hook) {
  return {
    id: hook.session,
    agent: hook.config.agent,
    ...(hook.input.cwd ? { cwd: hook.input.cwd } : {}),
    ...(hook.config.project ? { project: hook.config.project } : {}),
    started_at: now(),
  };
}

export function startRecord(hook, fields) {
  return { v: 1, type: 'start', session: hook.session, body: { ...lateStart(hook), ...fields } };
}

/** Events with their client ids and client times, as `POST /api/sessions/{id}/events` takes them. */
export function eventsRecord(hook, events) {
  return {
    v: 1,
    type: 'events',
    session: hook.session,
    start: lateStart(hook),
    events: events.map((event) => ({ id: randomUUID(), created_at: now(), ...event })),
  };
}

/**
 * A code event (`POST /api/code-events`): files changed in the session's repository, as paths and
 * blob ids (see code-events.mjs). Not tied to the session on the service, so it carries no start.
 */
export function codeRecord(hook, body) {
  return { v: 1, type: 'code', session: hook.session, body };
}

export function endRecord(hook) {
  return {
    v: 1,
    type: 'end',
    session: hook.session,
    start: lateStart(hook),
    body: { status: 'ended', ended_at: now() },
  };
}

function sendOnce(hook, record, deadline) {
  const call = (method, path, body) => callApi(hook.config, { method, path, body, deadline });
  const sessionPath = `/api/sessions/${encodeURIComponent(record.session)}`;
  if (record.type === 'start') return call('POST', '/api/sessions', record.body);
  if (record.type === 'events') return call('POST', `${sessionPath}/events`, { events: record.events });
  if (record.type === 'code') return call('POST', '/api/code-events', record.body);
  return call('PATCH', sessionPath, record.body);
}

/**
 * Sends one record; answers `{outcome: 'sent' | 'dropped' | 'kept', result}`. Events or an end
 * for a session the service does not know (its start never arrived) start it first, then retry.
 */
export async function deliver(hook, record, deadline) {
  let result = await sendOnce(hook, record, deadline);
  // A 404 on a start means the URL does not lead to the service: keep the record for later.
  let notFoundIsFinal = record.type !== 'start';
  if (result.status === 404 && record.type !== 'start' && record.start) {
    const started = await callApi(hook.config, {
      method: 'POST',
      path: '/api/sessions',
      body: record.start,
      deadline,
    });
    if (isOk(started)) {
      result = await sendOnce(hook, record, deadline);
    } else {
      result = started;
      notFoundIsFinal = false;
    }
  }
  if (isOk(result)) return { outcome: 'sent', result };
  // A key without `code-events:write` (403) or a service without the route (404) will not take
  // code events later either: dropped, so they do not hold up the records behind them.
  const refusedForGood = record.type === 'code' && (result.status === 403 || result.status === 404);
  if (!refusedForGood && (isRetryable(result) || (result.status === 404 && !notFoundIsFinal))) {
    hook.log(`kept ${record.type} for later: ${result.error ?? `HTTP ${result.status}`}`);
    return { outcome: 'kept', result };
  }
  const detail = typeof result.body === 'object' ? result.body?.detail : undefined;
  hook.log(`dropped ${record.type} refused with HTTP ${result.status}${detail ? `: ${detail}` : ''}`);
  return { outcome: 'dropped', result };
}

/**
 * Delivers a record this run spooled as `name`, ahead of the queue (the session start, which the
 * context depends on). Should another hook have taken it from the spool meanwhile, or the disk
 * have refused it, it is sent anyway: a start is idempotent.
 */
export async function deliverNow(hook, name, record, deadline) {
  const claimed = name === undefined ? undefined : hook.spool.claim(name);
  const delivered = await deliver(hook, claimed ?? record, deadline);
  if (claimed && delivered.outcome === 'kept') hook.spool.release(name);
  else if (claimed) hook.spool.remove(name);
  return delivered;
}

/**
 * Takes the records after `names[i]` that can go with `first` in one request: events of the same
 * session (one batch, within the service's caps), or later ends of the same session (only the
 * last one matters: a Stop per turn while the service was away leaves many).
 */
function mergeFollowing(hook, names, i, first) {
  const merged = first.type === 'events' ? { ...first, events: [...first.events] } : { ...first };
  const taken = [];
  let bytes = first.type === 'events' ? Buffer.byteLength(JSON.stringify(first.events)) : 0;
  while (i + taken.length < names.length) {
    const name = names[i + taken.length];
    const next = hook.spool.peek(name);
    if (!next || next.type !== first.type || next.session !== first.session) break;
    if (first.type === 'events') {
      const nextBytes = Buffer.byteLength(JSON.stringify(next.events));
      if (merged.events.length + next.events.length > MAX_BATCH_EVENTS) break;
      if (bytes + nextBytes > MAX_BATCH_BYTES) break;
      if (!hook.spool.claim(name)) break;
      merged.events.push(...next.events);
      bytes += nextBytes;
    } else {
      if (!hook.spool.claim(name)) break;
      merged.body = next.body;
    }
    taken.push(name);
  }
  return { merged, taken };
}

/**
 * Sends the spool oldest first until it is empty, the deadline nears, or the service is
 * unavailable (then the rest waits for a later run, in order). Consecutive events of one session
 * go in one batch, consecutive ends as the last one. Answers whether everything went.
 */
export async function drain(hook, deadline) {
  const names = hook.spool.pending();
  let i = 0;
  while (i < names.length) {
    if (deadline - performance.now() < MIN_SEND_MS) return false;
    const name = names[i++];
    const record = hook.spool.claim(name);
    if (!record) continue;
    let batch = [name];
    let toSend = record;
    if ((record.type === 'events' && Array.isArray(record.events)) || record.type === 'end') {
      const { merged, taken } = mergeFollowing(hook, names, i, record);
      i += taken.length;
      batch = [name, ...taken];
      toSend = merged;
    }
    const { outcome } = await deliver(hook, toSend, deadline);
    if (outcome === 'kept') {
      batch.forEach((held) => hook.spool.release(held));
      return false;
    }
    batch.forEach((done) => hook.spool.remove(done));
  }
  return true;
}
