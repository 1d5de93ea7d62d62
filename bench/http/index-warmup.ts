import type { ApiClient } from './api-client';
import { keyOf, type HttpShape } from './http-shape';

/** Far more than a 100k tenant takes to load; a tenant that never gets there shows in the share column. */
const WARM_DEADLINE_MS = 120_000;

interface RecallAnswer {
  readonly memories?: readonly {
    readonly explain?: { readonly text_source?: string | null; readonly vector_source?: string | null };
  }[];
}

/**
 * Recalls on the shape through every API process until each answers from its in-memory text and
 * vector indexes (`explain.text_source` and `vector_source` are `index`): an API process loads a tenant's indexes on the tenant's
 * first recall and searches Postgres meanwhile, so without this the first cells would time the
 * fallback. Then one recall as every other member, so what a member's first recall costs once (the
 * bounded count that sizes a large set, remembered for a minute) is paid here, as the in-process runs
 * pay it before timing. Each recall sends a text of its own, so no measured text is in a query cache.
 * Answers the first process's time from the first recall to an index answer (null: none in time).
 */
export async function warmApiTextIndexes(
  api: ApiClient,
  apiProcesses: number,
  shape: HttpShape,
  log: (line: string) => void,
  deadlineMs = WARM_DEADLINE_MS,
): Promise<number | null> {
  let firstLoadMs: number | null = null;
  for (let process = 0; process < apiProcesses; process++) {
    const ms = await untilServedByIndex(api, process, shape, deadlineMs);
    if (process === 0) firstLoadMs = ms;
    if (ms === null) log(`http: API ${process + 1} did not serve ${shape.label} from its text index in time`);
    for (const [member, principal] of shape.principals.entries())
      await recall(
        api,
        process,
        keyOf(shape, principal),
        `deploy rollback member warm-up ${process} ${member}`,
      );
  }
  return firstLoadMs;
}

async function untilServedByIndex(
  api: ApiClient,
  process: number,
  shape: HttpShape,
  deadlineMs: number,
): Promise<number | null> {
  const key = keyOf(shape, shape.principals[0]);
  const started = performance.now();
  for (let attempt = 0; performance.now() - started < deadlineMs; attempt++) {
    const answer = await recall(api, process, key, `deploy database rollback warm-up ${process} ${attempt}`);
    const explain = answer.memories?.[0]?.explain;
    // The vector leg's index loads after the text index's (and a large tenant's graph builds after it);
    // one that is off or over RECALL_VECTOR_INDEX_MB stays on Postgres for good.
    const vector = explain?.vector_source ?? 'index';
    if (explain?.text_source === 'index' && SETTLED_VECTOR_SOURCES.has(vector))
      return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

/** Where a warmed API's vector leg answers from once nothing more will load. */
const SETTLED_VECTOR_SOURCES = new Set(['index', 'sql:disabled', 'sql:too_large']);

/** One recall with `explain`, through API process `process` (lane `process` is pinned to it). */
function recall(api: ApiClient, process: number, key: string, context: string): Promise<RecallAnswer> {
  return api.json<RecallAnswer>(process, {
    method: 'POST',
    path: '/api/memories/recall',
    key,
    body: { context, limit: 1, explain: true },
  });
}
