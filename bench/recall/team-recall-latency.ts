import { type RecallMemoriesUseCase } from '@app/recall';
import { summariseLatencies, type LatencySummary } from '../metrics';
import type { HttpRecallClient } from './http-recall';
import { FloorPartsRecorder, type FloorParts, type RecallFloor } from './raw-floor';
import { RECALL_LIMIT, type TimedQuery } from './recall-latency';
import { indexShare, type TextLegCounts } from './text-leg-counts';

export interface TeamRecallLatency {
  readonly useCase: LatencySummary;
  readonly http: LatencySummary;
  /** The physical floor on the use case's queries and on the HTTP queries (each path against its own texts). */
  readonly floor: LatencySummary;
  readonly floorHttp: LatencySummary;
  /** Medians of the floor's parts on the use case's queries. */
  readonly floorParts: FloorParts;
  /** The text leg's Postgres fallback alone on the first queries (it ranks every match: costly at team size). */
  readonly sqlTextLeg: LatencySummary;
  /** Share of the timed recalls (use case and HTTP) whose text leg the app's index served. */
  readonly indexShare: number | null;
  readonly meanResults: number;
  readonly httpMeanResults: number;
}

/**
 * Times recall for one team through the use case and through HTTP, each against the floor on the
 * same texts. The two paths get different (equally unseen) query texts: the API's query cache is
 * keyed by text, so the second path to send a text would skip the embedding. The order of the
 * steps rotates per query so no variant always runs cold or warm. Warm-up queries are discarded.
 * The app's text index must be loaded for the team's tenant beforehand.
 */
export async function measureTeamRecallLatency(options: {
  recall: RecallMemoriesUseCase;
  http: HttpRecallClient;
  floor: RecallFloor;
  /** The app's count of text legs by source (the HTTP path runs in the same app). */
  textLegCounts: () => Promise<TextLegCounts | null>;
  /** Queries on which the Postgres text leg is timed alone. */
  sqlTextQueries: number;
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
  await options.floor.prepareFor([...options.warmup, ...options.queries].flat());
  for (const [a, b] of options.warmup) {
    await runUseCase(a);
    await options.http.recall(b.principal, b.text);
    await options.floor.run(a);
    await options.floor.run(b);
  }
  const times = {
    useCase: [] as number[],
    http: [] as number[],
    floor: [] as number[],
    floorHttp: [] as number[],
  };
  const parts = new FloorPartsRecorder();
  let results = 0;
  let httpResults = 0;
  const before = await options.textLegCounts();
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
      async () => times.floor.push(parts.record(await options.floor.run(a))),
      async () => times.floorHttp.push((await options.floor.run(b)).totalMs),
    ];
    for (let s = 0; s < steps.length; s++) await steps[(i + s) % steps.length]();
  }
  const share = indexShare(before, await options.textLegCounts());
  const sqlTextLeg: number[] = [];
  for (const [a] of options.queries.slice(0, options.sqlTextQueries))
    sqlTextLeg.push(await options.floor.sqlTextLeg(a));
  const n = Math.max(1, options.queries.length);
  return {
    useCase: summariseLatencies(times.useCase),
    http: summariseLatencies(times.http),
    floor: summariseLatencies(times.floor),
    floorHttp: summariseLatencies(times.floorHttp),
    floorParts: parts.medians(),
    sqlTextLeg: summariseLatencies(sqlTextLeg),
    indexShare: share,
    meanResults: results / n,
    httpMeanResults: httpResults / n,
  };
}
