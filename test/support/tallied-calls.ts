import type { ChaosTally } from '@app/testing';
import { withDb } from './superuser-db';

/** One HTTP answer as a chaos suite records it; status 0 when no answer came in time. */
export interface Answer {
  readonly status: number;
  readonly body: { detail?: unknown; code?: unknown; id?: number } & Record<string, unknown>;
  readonly retryAfter: string | null;
  readonly ms: number;
}

/** An answer later than this (or none) counts as a hang. */
export const HANG_MS = 20_000;

/** One JSON request with a bearer key; never throws (a failed or timed-out request is status 0). */
export async function callApi(
  baseUrl: string,
  key: string,
  request: { method: string; path: string; body?: unknown },
): Promise<Answer> {
  const started = Date.now();
  try {
    const res = await fetch(`${baseUrl}${request.path}`, {
      method: request.method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(HANG_MS),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: text ? (JSON.parse(text) as Answer['body']) : {},
      retryAfter: res.headers.get('retry-after'),
      ms: Date.now() - started,
    };
  } catch (error) {
    return { status: 0, body: { detail: String(error) }, retryAfter: null, ms: Date.now() - started };
  }
}

/** A call that must succeed: counted as a call (a 5xx fails the suite, no answer counts as a hang). */
export function expectOk(tally: ChaosTally, what: string, res: Answer): Answer {
  if (res.status === 0) tally.add('hangs');
  tally.status(res.status, what);
  tally.check(
    `${what} succeeded`,
    res.status >= 200 && res.status < 300,
    () => `${res.status} ${JSON.stringify(res.body)}`,
  );
  return res;
}

/**
 * A call that must answer the documented 503 (`code`, a detail, Retry-After) within `boundMs`:
 * counted as `expected 503`, not as a 5xx; any other 5xx is one.
 */
export function expectUnavailable(
  tally: ChaosTally,
  what: string,
  res: Answer,
  expected: { code: string; boundMs: number },
): void {
  tally.add('calls');
  if (res.status === 0) tally.add('hangs');
  if (res.status === 503) tally.add('expected 503');
  else if (res.status >= 500) tally.add('5xx');
  tally.check(
    `${what} answered 503 ${expected.code} with a detail and Retry-After`,
    res.status === 503 &&
      res.body.code === expected.code &&
      typeof res.body.detail === 'string' &&
      res.body.detail.length > 0 &&
      /^\d+$/.test(res.retryAfter ?? ''),
    () => `${res.status} ${JSON.stringify(res.body)} retry-after=${res.retryAfter}`,
  );
  tally.check(
    `${what} answered within ${expected.boundMs} ms`,
    res.ms <= expected.boundMs,
    () => `${res.ms} ms`,
  );
}

/**
 * Acknowledged writes (by their unique content) must be stored exactly once, refused ones not at
 * all; a missing acknowledged write counts as lost. The superuser connection bypasses RLS.
 */
export async function checkStoredOnce(
  tally: ChaosTally,
  acknowledged: readonly string[],
  refused: readonly string[],
): Promise<void> {
  const found = await withDb(async (db) => {
    const { rows } = await db.query<{ content: string; n: number }>(
      `SELECT content, count(*)::int AS n FROM memories
        WHERE content = ANY($1) AND deleted_at IS NULL GROUP BY content`,
      [[...acknowledged, ...refused]],
    );
    return new Map(rows.map((r) => [r.content, r.n]));
  });
  tally.add('acknowledged writes', acknowledged.length);
  for (const content of acknowledged) {
    const n = found.get(content) ?? 0;
    if (n === 0) tally.add('lost');
    tally.check('an acknowledged write is stored exactly once', n === 1, () => `${n} copies of "${content}"`);
  }
  for (const content of refused) {
    tally.check('a refused write left nothing', !found.has(content), () => `"${content}" was stored`);
  }
}
