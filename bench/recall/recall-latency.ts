import { type Principal } from '@app/tenancy';
import { type RecallInput, type RecallMemoriesUseCase } from '@app/recall';
import { summariseLatencies, type LatencySummary } from '../metrics';
import { type VectorPlan } from '@app/recall/testing';
import { FloorPartsRecorder, type FloorParts, type RecallFloor } from './raw-floor';
import { indexShare, type TextLegCounts } from './text-leg-counts';

/** What the benchmark asks: the default recall request of an agent (top 10 by relevance). */
export const RECALL_LIMIT = 10;
/** The depth each leg searches for that request (RecallMemoriesUseCase: max(limit × 3, 30)). */
export const RECALL_LEG_K = Math.max(RECALL_LIMIT * 3, 30);

export interface RecallLatencyResult {
  readonly useCase: LatencySummary;
  /** The same queries again: the query embedding now comes from the LRU cache. */
  readonly useCaseCached: LatencySummary;
  /** The physical floor: embed + index top-k + vector statement + row fetch under RLS. */
  readonly floor: LatencySummary;
  /** Medians of the floor's parts: where the irreducible time goes. */
  readonly floorParts: FloorParts;
  /** The text leg's Postgres fallback alone (`recall_text_search`), on the same texts: not in the floor. */
  readonly sqlTextLeg: LatencySummary;
  /** Share of the timed recalls whose text leg the app's index served (null: not counted). */
  readonly indexShare: number | null;
  /** Mean number of results the use case returned (a sanity check that recall answered). */
  readonly meanResults: number;
}

export interface TimedQuery {
  readonly principal: Principal;
  readonly text: string;
  /** The vector plan the repository chooses for this caller (looked up before timing). */
  readonly plan: VectorPlan;
}

/**
 * Times the real use case and the floor on the same queries, alternating which goes first so that
 * neither always finds the other's pages and plans warm, then the Postgres text leg alone. Warm-up
 * queries are discarded. The app's text index must be loaded for the callers' tenant beforehand.
 */
export async function measureRecallLatency(options: {
  recall: RecallMemoriesUseCase;
  floor: RecallFloor;
  legs: NonNullable<RecallInput['legs']>;
  /** The app's count of text legs by source, read around the timed loop. */
  textLegCounts: () => Promise<TextLegCounts | null>;
  warmup: readonly TimedQuery[];
  queries: readonly TimedQuery[];
}): Promise<RecallLatencyResult> {
  const request = (text: string): RecallInput => ({
    context: text,
    expandedQuery: '',
    sortBy: 'relevance',
    limit: RECALL_LIMIT,
    legs: options.legs,
  });
  const runUseCase = async (q: TimedQuery) => {
    const started = performance.now();
    const results = await options.recall.execute(q.principal, request(q.text));
    return { ms: performance.now() - started, results: results.length };
  };
  await options.floor.prepareFor([...options.warmup, ...options.queries]);
  for (const q of options.warmup) {
    await runUseCase(q);
    await options.floor.run(q);
  }
  const useCase: number[] = [];
  const floor: number[] = [];
  const parts = new FloorPartsRecorder();
  let results = 0;
  const before = await options.textLegCounts();
  for (const [i, q] of options.queries.entries()) {
    const steps = [
      async () => {
        const measured = await runUseCase(q);
        useCase.push(measured.ms);
        results += measured.results;
      },
      async () => floor.push(parts.record(await options.floor.run(q))),
    ];
    // Rotate the order so no variant always runs first (cold) or last (warm).
    for (let s = 0; s < steps.length; s++) await steps[(i + s) % steps.length]();
  }
  const share = indexShare(before, await options.textLegCounts());
  const sqlTextLeg: number[] = [];
  for (const q of options.queries) sqlTextLeg.push(await options.floor.sqlTextLeg(q));
  const cached: number[] = [];
  for (const q of options.queries) cached.push((await runUseCase(q)).ms);
  return {
    useCase: summariseLatencies(useCase),
    useCaseCached: summariseLatencies(cached),
    floor: summariseLatencies(floor),
    floorParts: parts.medians(),
    sqlTextLeg: summariseLatencies(sqlTextLeg),
    indexShare: share,
    meanResults: results / Math.max(1, options.queries.length),
  };
}
