import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { type Principal } from '@app/tenancy';
import { summariseLatencies, type LatencySummary } from '../metrics';

/** The workload: batches of 10 events, 1,000 events a second. */
export const EVENTS_PER_BATCH = 10;
export const EVENTS_PER_SECOND = 1000;

export interface EventIngestResult {
  readonly batches: number;
  readonly eventsPerBatch: number;
  /** The pace asked for and the pace reached (batches were sent on schedule, not after each answer). */
  readonly targetEventsPerSecond: number;
  readonly achievedEventsPerSecond: number;
  /** `POST /api/sessions/{id}/events` until its 202, through the running API with the user's key. */
  readonly http: LatencySummary;
  /** One multi-row INSERT of the same rows through `pg`, as the schema owner, at the same pace. */
  readonly floor: LatencySummary;
  /** Answers other than 202 (none expected). */
  readonly failures: number;
  /** Events the session holds afterwards (should be batches × eventsPerBatch). */
  readonly stored: number;
}

export interface EventIngestOptions {
  readonly apiUrl: string;
  readonly key: string;
  readonly principal: Principal;
  readonly pg: Client;
  readonly seconds: number;
  readonly log: (line: string) => void;
}

/**
 * Event capture through the front door at the rate a busy team's hooks produce: an open-loop
 * schedule (a batch every 10 ms whatever the previous answers did, as independent hook processes
 * would), so queueing shows in the tail instead of slowing the sender. The floor sends the same
 * rows at the same pace as one multi-row INSERT each.
 */
export async function measureEventIngest(options: EventIngestOptions): Promise<EventIngestResult> {
  const batches = Math.max(1, Math.round((options.seconds * EVENTS_PER_SECOND) / EVENTS_PER_BATCH));
  const sessionId = await startSession(options);
  const warmup = Math.min(50, batches);
  options.log(`event ingest: ${warmup} warm-up batches, then ${batches} batches of ${EVENTS_PER_BATCH}`);
  await paced(warmup, (i) => postBatch(options, sessionId, eventBatch(`warmup-${i}`)));

  const started = performance.now();
  const http = await paced(batches, (i) => postBatch(options, sessionId, eventBatch(String(i))));
  const elapsedS = (performance.now() - started) / 1000;

  const floorSession = await floorSessionFor(options.pg, options.principal);
  await paced(warmup, (i) => insertBatch(options.pg, options.principal, floorSession, eventBatch(`w${i}`)));
  const floor = await paced(batches, (i) =>
    insertBatch(options.pg, options.principal, floorSession, eventBatch(String(i))),
  );
  const { rows } = await options.pg.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM session_events WHERE session_id = $1`,
    [sessionId],
  );
  const ok = http.filter((r) => r.ok);
  return {
    batches,
    eventsPerBatch: EVENTS_PER_BATCH,
    targetEventsPerSecond: EVENTS_PER_SECOND,
    achievedEventsPerSecond: (batches * EVENTS_PER_BATCH) / elapsedS,
    http: summariseLatencies(ok.map((r) => r.ms)),
    floor: summariseLatencies(floor.map((r) => r.ms)),
    failures: http.length - ok.length,
    stored: rows[0].n - warmup * EVENTS_PER_BATCH,
  };
}

interface Timed {
  readonly ok: boolean;
  readonly ms: number;
}

/** Starts call i at start + i × interval, without waiting for earlier calls; answers every timing. */
async function paced(count: number, call: (i: number) => Promise<boolean>): Promise<Timed[]> {
  const intervalMs = (1000 * EVENTS_PER_BATCH) / EVENTS_PER_SECOND;
  const start = performance.now();
  const pending: Promise<Timed>[] = [];
  for (let i = 0; i < count; i++) {
    const wait = start + i * intervalMs - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const t0 = performance.now();
    pending.push(
      call(i).then(
        (ok) => ({ ok, ms: performance.now() - t0 }),
        () => ({ ok: false, ms: performance.now() - t0 }),
      ),
    );
  }
  return Promise.all(pending);
}

export interface BenchEvent {
  readonly kind: 'prompt' | 'tool_call' | 'observation';
  readonly payload: Record<string, unknown>;
}

/** What a hook sends: a prompt, tool calls with a compact input, observations. */
export function eventBatch(tag: string): BenchEvent[] {
  return Array.from({ length: EVENTS_PER_BATCH }, (_, i): BenchEvent => {
    if (i === 0)
      return {
        kind: 'prompt',
        payload: {
          text: `Refactor the ingest path so batch ${tag} keeps its order and retries on a lost connection`,
        },
      };
    if (i % 3 === 1)
      return {
        kind: 'tool_call',
        payload: { tool: 'Edit', input: { file_path: `src/ingest/batch-${i}.ts`, lines: 12 + i } },
      };
    return {
      kind: 'observation',
      payload: { text: `Tests in src/ingest passed (${40 + i} of ${40 + i}); batch ${tag} step ${i}` },
    };
  });
}

async function postBatch(
  options: EventIngestOptions,
  sessionId: string,
  events: BenchEvent[],
): Promise<boolean> {
  const response = await fetch(`${options.apiUrl}/api/sessions/${sessionId}/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  });
  await response.arrayBuffer();
  return response.status === 202;
}

export async function startSession(options: Pick<EventIngestOptions, 'apiUrl' | 'key'>): Promise<string> {
  const response = await fetch(`${options.apiUrl}/api/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'bench', git_remote: 'git@github.com:bench/ingest.git' }),
  });
  const body = (await response.json()) as { id?: string; detail?: string };
  if (response.status !== 201 && response.status !== 200)
    throw new Error(`session start answered ${response.status}: ${body.detail ?? ''}`);
  return body.id as string;
}

export async function floorSessionFor(pg: Client, principal: Principal): Promise<string> {
  const id = randomUUID();
  await pg.query(
    `INSERT INTO sessions (id, tenant_id, user_id, agent, project) VALUES ($1, $2, $3, 'bench-floor', 'github.com/bench/ingest')`,
    [id, principal.tenantId, principal.userId],
  );
  return id;
}

export async function insertBatch(pg: Client, principal: Principal, sessionId: string, events: BenchEvent[]) {
  const values: unknown[] = [principal.tenantId, sessionId, principal.userId];
  const rows = events.map((event, i) => {
    values.push(event.kind, JSON.stringify(event.payload));
    return `($1, $2, $3, $${4 + i * 2}, $${5 + i * 2}::jsonb)`;
  });
  await pg.query(
    `INSERT INTO session_events (tenant_id, session_id, user_id, kind, payload) VALUES ${rows.join(', ')}`,
    values,
  );
  return true;
}
