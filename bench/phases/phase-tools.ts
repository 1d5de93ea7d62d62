import { type VectorPlan } from '@app/recall/testing';
import { type Principal } from '@app/tenancy';
import type { RecallWiring } from '../harness/recall-wiring';
import { RecallFloor } from '../recall/raw-floor';
import { RECALL_LEG_K } from '../recall/recall-latency';
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

/** The raw floor for this run's model and wiring, with the k each recall leg uses. */
export function createFloor(ctx: BenchContext, wiring: RecallWiring): Promise<RecallFloor> {
  return RecallFloor.create({
    pg: ctx.pg,
    model: ctx.rawModel,
    active: ctx.active,
    k: RECALL_LEG_K,
    exactScanMaxRows: wiring.exactScanMaxRows,
    withVectorLeg: wiring.vectorLegWired,
  });
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
  });
}
