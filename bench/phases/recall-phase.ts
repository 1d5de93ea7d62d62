import { summariseLatencies, type LatencySummary } from '../metrics';
import { generateQueries } from '../corpus/memory-generator';
import type { RecallWiring } from '../harness/recall-wiring';
import type { RecallRow } from '../report/bench-report';
import { measureRecallLatency, type TimedQuery } from '../recall/recall-latency';
import type { BenchContext } from './bench-context';
import { createFloor, planLookup, vectorQuality, warmAppTextIndex } from './phase-tools';

export interface RecallPhaseOptions {
  readonly memories: number;
  readonly config: RecallRow['config'];
  readonly wiring: RecallWiring;
  readonly queries: number;
  readonly warmup: number;
}

/** Latency against the floor, then the vector leg's recall@10, for one data size and configuration. */
export async function runRecallPhase(ctx: BenchContext, options: RecallPhaseOptions): Promise<RecallRow> {
  const { wiring } = options;
  const generated = generateQueries({
    count: options.warmup + options.queries,
    users: ctx.principals.length,
    seed: options.memories * 10 + (options.config === 'hnsw' ? 1 : 0),
    exclude: ctx.usedQueries,
  });
  generated.forEach((q) => ctx.usedQueries.add(q.text));

  // The repository picks the plan per caller; ask it once per user, outside the timed loop.
  const { planOf } = planLookup(ctx, wiring);
  const timed: TimedQuery[] = [];
  for (const q of generated) {
    const principal = ctx.principals[q.owner];
    timed.push({ principal, text: q.text, plan: await planOf(principal) });
  }

  // One tenant holds the 100 users: one load serves every caller. The floor's copy loads afresh at
  // each size, so its load time is that size's.
  if (options.config === 'default') ctx.floorTexts.forget(ctx.principals[0].tenantId);
  const appLoadMs = await warmAppTextIndex(ctx, wiring, ctx.principals[0]);
  const floor = await createFloor(ctx, wiring);
  ctx.log(`recall latency: ${options.queries} queries at ${options.memories} memories (${options.config})`);
  const latency = await measureRecallLatency({
    recall: wiring.recall,
    floor,
    legs: { text: true, vector: wiring.vectorLegWired },
    textLegCounts: () => wiring.textLegCounts(),
    warmup: timed.slice(0, options.warmup),
    queries: timed.slice(options.warmup),
  });
  ctx.log(`vector leg recall@10 vs exact at ${options.memories} memories (${options.config})`);
  const quality = await vectorQuality(ctx, wiring, timed.slice(options.warmup));
  return {
    memories: options.memories,
    config: options.config,
    latency,
    quality,
    prepare: await timePrepare(wiring, timed.slice(options.warmup)),
    vectorLegWired: wiring.vectorLegWired,
    textIndex: { appLoadMs, floor: ctx.floorTexts.loadOf(ctx.principals[0].tenantId) ?? null },
  };
}

/**
 * The vector leg's query preparation alone (active model lookup, query cache miss, embedder),
 * on texts not seen before: the part of the use case's time spent before any SQL runs.
 */
async function timePrepare(
  wiring: RecallWiring,
  queries: readonly TimedQuery[],
): Promise<LatencySummary | null> {
  if (!wiring.vectorRecall) return null;
  const times: number[] = [];
  for (const q of queries) {
    const started = performance.now();
    await wiring.vectorRecall.prepare(`${q.text} (prepare probe)`);
    times.push(performance.now() - started);
  }
  return summariseLatencies(times);
}
