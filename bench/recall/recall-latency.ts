import { type Principal } from '@app/tenancy';
import { type RecallInput, type RecallMemoriesUseCase } from '@app/recall';
import { summariseLatencies, type LatencySummary } from '../metrics';
import { type VectorPlan } from '@app/recall/testing';
import type { RecallFloor } from './raw-floor';

/** What the benchmark asks: the default recall request of an agent (top 10 by relevance). */
export const RECALL_LIMIT = 10;
/** The depth each leg searches for that request (RecallMemoriesUseCase: max(limit × 3, 30)). */
export const RECALL_LEG_K = Math.max(RECALL_LIMIT * 3, 30);

export interface RecallLatencyResult {
  readonly useCase: LatencySummary;
  /** The floor's statements in a transaction as the app role with RLS context (not the target's floor). */
  readonly floorWithRls: LatencySummary;
  /** The same queries again: the query embedding now comes from the LRU cache. */
  readonly useCaseCached: LatencySummary;
  readonly floor: LatencySummary;
  /** Medians of the floor's parts: where the irreducible time goes. */
  readonly floorParts: { readonly embedMs: number; readonly textMs: number; readonly vectorMs: number };
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
 * Times the real use case and the raw floor on the same queries, alternating which goes first
 * so that neither always finds the other's pages and plans warm. Warm-up queries are discarded.
 */
export async function measureRecallLatency(options: {
  recall: RecallMemoriesUseCase;
  floor: RecallFloor;
  legs: NonNullable<RecallInput['legs']>;
  /** The application role (DATABASE_APP_ROLE) for the RLS variant of the floor. */
  appRole: string;
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
  for (const q of options.warmup) {
    await runUseCase(q);
    await options.floor.run(q.principal, q.text, RECALL_LEG_K, q.plan);
    await options.floor.run(q.principal, q.text, RECALL_LEG_K, q.plan, options.appRole);
  }
  const useCase: number[] = [];
  const floor: number[] = [];
  const floorWithRls: number[] = [];
  const parts = { embed: [] as number[], text: [] as number[], vector: [] as number[] };
  let results = 0;
  for (const [i, q] of options.queries.entries()) {
    const steps = [
      async () => {
        const measured = await runUseCase(q);
        useCase.push(measured.ms);
        results += measured.results;
      },
      async () =>
        floor.push(recordFloor(await options.floor.run(q.principal, q.text, RECALL_LEG_K, q.plan), parts)),
      async () =>
        floorWithRls.push(
          (await options.floor.run(q.principal, q.text, RECALL_LEG_K, q.plan, options.appRole)).totalMs,
        ),
    ];
    // Rotate the order so no variant always runs first (cold) or last (warm).
    for (let s = 0; s < steps.length; s++) await steps[(i + s) % steps.length]();
  }
  const cached: number[] = [];
  for (const q of options.queries) cached.push((await runUseCase(q)).ms);
  return {
    useCase: summariseLatencies(useCase),
    useCaseCached: summariseLatencies(cached),
    floor: summariseLatencies(floor),
    floorWithRls: summariseLatencies(floorWithRls),
    floorParts: {
      embedMs: summariseLatencies(parts.embed).p50,
      textMs: summariseLatencies(parts.text).p50,
      vectorMs: summariseLatencies(parts.vector).p50,
    },
    meanResults: results / Math.max(1, options.queries.length),
  };
}

function recordFloor(
  timing: { embedMs: number; textMs: number; vectorMs: number; totalMs: number },
  parts: { embed: number[]; text: number[]; vector: number[] },
): number {
  parts.embed.push(timing.embedMs);
  parts.text.push(timing.textMs);
  parts.vector.push(timing.vectorMs);
  return timing.totalMs;
}
