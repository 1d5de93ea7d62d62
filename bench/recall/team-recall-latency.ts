import { type RecallMemoriesUseCase } from '@app/recall';
import { summariseLatencies, type LatencySummary } from '../metrics';
import type { HttpRecallClient } from './http-recall';
import type { RecallFloor } from './raw-floor';
import { RECALL_LEG_K, RECALL_LIMIT, type TimedQuery } from './recall-latency';

export interface TeamRecallLatency {
  readonly useCase: LatencySummary;
  readonly http: LatencySummary;
  /** The floor on the use case's queries and on the HTTP queries (each path against its own texts). */
  readonly floor: LatencySummary;
  readonly floorHttp: LatencySummary;
  /** The floor's statements in one transaction as the app role with the caller's RLS context. */
  readonly floorWithRls: LatencySummary;
  /** Medians of the floor's parts on the use case's queries. */
  readonly floorParts: { readonly embedMs: number; readonly textMs: number; readonly vectorMs: number };
  readonly meanResults: number;
  readonly httpMeanResults: number;
}

/**
 * Times recall for one team through the use case and through HTTP, each against the raw floor on
 * the same texts. The two paths get different (equally unseen) query texts: the API's query cache
 * is keyed by text, so the second path to send a text would skip the embedding. The order of the
 * steps rotates per query so no variant always runs cold or warm. Warm-up queries are discarded.
 */
export async function measureTeamRecallLatency(options: {
  recall: RecallMemoriesUseCase;
  http: HttpRecallClient;
  floor: RecallFloor;
  appRole: string;
  /** Pairs of texts from one caller: `[0]` for the use case, `[1]` for HTTP. */
  warmup: readonly (readonly [TimedQuery, TimedQuery])[];
  queries: readonly (readonly [TimedQuery, TimedQuery])[];
}): Promise<TeamRecallLatency> {
  const runUseCase = async (q: TimedQuery) => {
    const started = performance.now();
    const found = await options.recall.execute(q.principal, {
      context: q.text,
      expandedQuery: '',
      sortBy: 'relevance',
      limit: RECALL_LIMIT,
    });
    return { ms: performance.now() - started, results: found.length };
  };
  const floor = (q: TimedQuery, asRole?: string) =>
    options.floor.run(q.principal, q.text, RECALL_LEG_K, q.plan, asRole);
  for (const [a, b] of options.warmup) {
    await runUseCase(a);
    await options.http.recall(b.principal, b.text);
    await floor(a);
    await floor(b);
  }
  const times = {
    useCase: [] as number[],
    http: [] as number[],
    floor: [] as number[],
    floorHttp: [] as number[],
  };
  const rls: number[] = [];
  const parts = { embed: [] as number[], text: [] as number[], vector: [] as number[] };
  let results = 0;
  let httpResults = 0;
  for (const [i, [a, b]] of options.queries.entries()) {
    const steps = [
      async () => {
        const measured = await runUseCase(a);
        times.useCase.push(measured.ms);
        results += measured.results;
      },
      async () => {
        const measured = await options.http.recall(b.principal, b.text);
        times.http.push(measured.ms);
        httpResults += measured.results;
      },
      async () => {
        const timing = await floor(a);
        times.floor.push(timing.totalMs);
        parts.embed.push(timing.embedMs);
        parts.text.push(timing.textMs);
        parts.vector.push(timing.vectorMs);
      },
      async () => times.floorHttp.push((await floor(b)).totalMs),
      async () => rls.push((await floor(a, options.appRole)).totalMs),
    ];
    for (let s = 0; s < steps.length; s++) await steps[(i + s) % steps.length]();
  }
  const n = Math.max(1, options.queries.length);
  return {
    useCase: summariseLatencies(times.useCase),
    http: summariseLatencies(times.http),
    floor: summariseLatencies(times.floor),
    floorHttp: summariseLatencies(times.floorHttp),
    floorWithRls: summariseLatencies(rls),
    floorParts: {
      embedMs: summariseLatencies(parts.embed).p50,
      textMs: summariseLatencies(parts.text).p50,
      vectorMs: summariseLatencies(parts.vector).p50,
    },
    meanResults: results / n,
    httpMeanResults: httpResults / n,
  };
}
