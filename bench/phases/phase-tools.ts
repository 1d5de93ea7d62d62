import { type VectorPlan } from '@app/recall/testing';
import { type Principal } from '@app/tenancy';
import type { RecallWiring } from '../harness/recall-wiring';
import { RecallFloor } from '../recall/raw-floor';
import { RECALL_LEG_K, RECALL_LIMIT } from '../recall/recall-latency';
import { measureVectorQuality, type VectorQualityResult } from '../recall/vector-quality';
import type { BenchContext } from './bench-context';

/**
 * The plan the repository picks for each caller, asked once per caller outside the timed loops.
 * `sizingMs` holds how long each first ask took (the bounded count, as the app role).
 */
export function planLookup(ctx: BenchContext, wiring: RecallWiring) {
  const plans = new Map<string, VectorPlan>();
  const sizingMs: number[] = [];
  const planOf = async (principal: Principal): Promise<VectorPlan> => {
    let plan = plans.get(principal.userId);
    if (!plan) {
      const started = performance.now();
      plan = await wiring.tx.inTenant(principal, (tx) =>
        wiring.vectors.choosePlan(principal, tx, 'visible', ctx.active.id),
      );
      sizingMs.push(performance.now() - started);
      plans.set(principal.userId, plan);
    }
    return plan;
  };
  return { planOf, sizingMs };
}

/** The raw floor for this run's model and wiring, with the k each recall leg uses and recall's limit. */
export function createFloor(ctx: BenchContext, wiring: RecallWiring): Promise<RecallFloor> {
  return RecallFloor.create({
    pg: ctx.pg,
    model: ctx.rawModel,
    active: ctx.active,
    k: RECALL_LEG_K,
    limit: RECALL_LIMIT,
    exactScanMaxRows: wiring.exactScanMaxRows,
    withVectorLeg: wiring.vectorLegWired,
    appRole: wiring.appRole,
    texts: ctx.floorTexts,
  });
}

/**
 * Loads the tenant's text index in the app's own registry before anything is timed, so every
 * measured recall is served by the index (a cold tenant is searched in Postgres while it loads).
 * Answers how long the load took; null when the app has no index, held it already, or it did not load.
 */
export async function warmAppTextIndex(
  ctx: BenchContext,
  wiring: RecallWiring,
  principal: Principal,
): Promise<number | null> {
  if (!wiring.textIndex) return null;
  const started = performance.now();
  const model = { modelId: ctx.active.id, dimensions: ctx.active.dimensions };
  const held = wiring.textIndex.acquire(principal);
  // Already held (an earlier phase loaded it): a recall brings it up to date, nothing loads.
  if (
    'entry' in held &&
    (!wiring.vectorLegWired || 'vectors' in wiring.textIndex.acquireVectors(principal, held.entry, model))
  )
    return null;
  const ready = wiring.vectorLegWired
    ? await wiring.textIndex.warmVectors(principal, model)
    : await wiring.textIndex.warm(principal);
  const ms = performance.now() - started;
  ctx.log(
    ready
      ? `app text and vector indexes of ${principal.tenantSlug} loaded in ${Math.round(ms)} ms`
      : `app indexes of ${principal.tenantSlug} did not load: its recalls run in Postgres`,
  );
  return ready ? ms : null;
}

/** The vector leg's recall@10 against an exact scan of the same visible set, with recall's k. */
export function vectorQuality(
  ctx: BenchContext,
  wiring: RecallWiring,
  queries: readonly { principal: Principal; text: string }[],
): Promise<VectorQualityResult> {
  return measureVectorQuality({
    queries,
    vectors: wiring.vectors,
    tx: wiring.tx,
    pg: ctx.pg,
    model: ctx.rawModel,
    active: ctx.active,
    k: RECALL_LEG_K,
    local: ctx.floorTexts,
  });
}
