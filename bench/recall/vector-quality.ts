import type { Client } from 'pg';
import { type TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { type MemoryVectorRepository, type VectorPlan } from '@app/recall/testing';
import { buildNearestQuery } from '@app/recall/testing';
import { type LoadedModel } from '@app/embeddings/testing';
import type { ActiveModel } from '../harness/bulk-loader';
import { mean, tieAwareRecallAtK, type RankedDistance } from '../metrics';
import type { FloorTextIndexes } from './floor-text-index';

export interface VectorQualityResult {
  readonly queries: number;
  /** Mean tie-aware recall@10 of the vector leg against an exact scan of the same rows. */
  readonly recallAt10: number;
  /** Queries whose vector leg returned fewer rows than the exact scan (up to k). */
  readonly shortAnswers: number;
  /** How often each plan answered (the repository picks by the caller's candidate count). */
  readonly plans: Readonly<Record<VectorPlan, number>>;
  readonly exactFallbacks: number;
}

/**
 * Runs the vector leg as recall runs it with the k recall uses — on the in-memory vector index
 * (`local`: the same `TenantVectorIndex` and graph an API process holds; `hnsw` counts its graph
 * answers) or, where there is none, through the real repository (plan choice, SET LOCAL settings,
 * RLS transaction) — and compares its top 10 with the exact nearest rows computed by the
 * repository's own exact form over the same visible set.
 */
export async function measureVectorQuality(options: {
  queries: readonly { principal: Principal; text: string }[];
  vectors: MemoryVectorRepository;
  tx: TransactionRunner;
  pg: Client;
  model: LoadedModel;
  active: ActiveModel;
  k: number;
  local?: FloorTextIndexes;
}): Promise<VectorQualityResult> {
  const local = options.local?.holdsVectors ? options.local : null;
  if (local) await local.prepare(options.pg, [...new Set(options.queries.map((q) => q.principal))], []);
  const recalls: number[] = [];
  const plans: Record<VectorPlan, number> = { exact: 0, hnsw: 0 };
  let shortAnswers = 0;
  let exactFallbacks = 0;
  for (const { principal, text } of options.queries) {
    const [vector] = await options.model.embedBatch([text]);
    const spec = { modelId: options.active.id, dimensions: options.active.dimensions, vector, k: options.k };
    const held = local?.nearest(principal, vector, options.k);
    const result = held
      ? {
          plan: held.plan === 'graph' ? ('hnsw' as const) : ('exact' as const),
          exactFallback: false,
          hits: held.hits,
        }
      : await options.tx.inTenant(principal, (tx) => options.vectors.searchDetailed(principal, tx, spec));
    plans[result.plan] += 1;
    if (result.exactFallback) exactFallbacks += 1;
    const exactQuery = buildNearestQuery('exact', 'visible', principal, { ...spec, filters: {} });
    const { rows } = await options.pg.query<{ memory_id: string; distance: number }>(
      exactQuery.sql,
      exactQuery.params,
    );
    const exact: RankedDistance[] = rows.map((r) => ({ id: r.memory_id, distance: Number(r.distance) }));
    const approx: RankedDistance[] = result.hits.map((h) => ({
      id: String(h.memoryId),
      distance: h.distance,
    }));
    if (approx.length < Math.min(options.k, exact.length)) shortAnswers += 1;
    recalls.push(tieAwareRecallAtK(approx, exact, 10));
  }
  return { queries: recalls.length, recallAt10: mean(recalls), shortAnswers, plans, exactFallbacks };
}
