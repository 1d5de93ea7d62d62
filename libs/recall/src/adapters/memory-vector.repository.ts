import { Inject, Injectable } from '@nestjs/common';
import { dominantTenantComment, hnswIndexName, tenantHnswIndexName } from '@app/embeddings';
import { type TenantScope, type Tx } from '@app/persistence';
import type { RecallFilter } from '../domain/recall-filter';
import type { NearDuplicatePair, VectorHit } from '../ports/vector-recall.port';
import {
  buildCandidateCountQuery,
  buildNearDuplicatesQuery,
  buildNearestQuery,
  type BuiltQuery,
  type NearDuplicateSpec,
  type VectorPlan,
  type VectorQuerySpec,
  type VectorReach,
} from './memory-vector.sql';
import { LargeSetMemo } from './large-set-memo';
import { isAdminScope } from './recall-filter.sql';

export type { VectorPlan } from './memory-vector.sql';
export type { VectorHit } from '../ports/vector-recall.port';

export interface VectorSearchInput {
  readonly modelId: string;
  readonly dimensions: number;
  /** The query embedding (same model), L2-normalised or not: cosine distance ignores length. */
  readonly vector: ArrayLike<number>;
  readonly k: number;
  readonly filters?: RecallFilter;
}

export interface NearestInput {
  readonly modelId: string;
  readonly dimensions: number;
  readonly vector: ArrayLike<number>;
  readonly k: number;
  /** Leave this memory out (the one being checked against the others). */
  readonly excludeId?: number;
}

export type NearDuplicatesInput = NearDuplicateSpec;

export type { NearDuplicatePair };

export interface VectorSearchResult {
  readonly plan: VectorPlan;
  /** The index walk came up short of k (selective filters, scan cap) and an exact scan answered. */
  readonly exactFallback: boolean;
  /**
   * The bounded candidate count the plan was chosen by (each kind of candidate counted up to
   * exactScanMaxRows, by the exact query itself; exactScanMaxRows for the index plan).
   */
  readonly candidates: number;
  /** The HNSW plan's index: the tenant's own once it is built; null for the exact plan. */
  readonly index: VectorIndexKind | null;
  readonly hits: VectorHit[];
}

export interface MemoryVectorOptions {
  /** Below this many candidate rows, scan exactly; at or above it, use the HNSW index. */
  readonly exactScanMaxRows: number;
  /** Upper bound on tuples one iterative index scan visits (pgvector `hnsw.max_scan_tuples`). */
  readonly maxScanTuples?: number;
  /** How long a caller counted at or above the threshold is taken to still be (0: count every time). */
  readonly largeSetTtlMs?: number;
}

export const MEMORY_VECTOR_OPTIONS = Symbol('MEMORY_VECTOR_OPTIONS');

const MAX_K = 1000;
const MAX_SCAN_CAP = 5_000;
/**
 * Most distances an exact near-duplicate scan may compute (scanned memories × the owner's rows);
 * above it each scanned memory probes the HNSW index instead. 2M distances of 100-d vectors take
 * ~0.3 s here; 2,000 × 7,500 exact took 2.2 s.
 */
export const DUPLICATES_EXACT_BUDGET = 2_000_000;
const DEFAULT_MAX_SCAN_TUPLES = 20_000;
const DEFAULT_LARGE_SET_TTL_MS = 60_000;

/**
 * HNSW candidate list size. Filtered walks drop most candidates, so it is generous: measured at
 * 1% selectivity over 101k rows, 100 gave recall@10 ≈ 0.95 and 200 ≈ 0.99 at the same latency
 * (the walk's cost is dominated by the rows it filters out). pgvector caps it at 1000.
 */
export function efSearchFor(k: number, index: VectorIndexKind = 'model', indexRows = 0): number {
  // A graph of LARGE_HNSW_ROWS or more needs a list twice as long for the same recall: the dominant
  // tenant of 1,000,000 rows got recall@10 0.90 at 150, 0.94 at 200 and 0.95 at 300 (docs/performance.md).
  const scale = indexRows >= LARGE_HNSW_ROWS ? 2 : 1;
  // A tenant's own index holds only its rows: no candidate is filtered out by tenant, and a list of
  // 4k (at least 100) gave recall@10 0.98 at 100k and 0.997 at 10k team memories, in a third of the
  // walk that 300 on the shared index took (docs/performance.md).
  const own = Math.max(k * 4, 100) * scale;
  if (index === 'tenant') return Math.min(1000, own);
  // The tenant holding 80% or more of the shared index loses at most a fifth of the candidates.
  if (index === 'dominant') return Math.min(1000, Math.ceil(own / 0.8));
  return Math.min(1000, Math.max(k * 10, 200) * scale);
}

/** Rows (the index's `reltuples`) from which a walk takes the longer candidate list. */
export const LARGE_HNSW_ROWS = 500_000;

/**
 * Which HNSW index a walk uses: the tenant's own (MaintainTenantIndexesUseCase), the model's shared
 * one for the tenant that holds most of it (`dominant`), or the shared one among other tenants.
 */
export type VectorIndexKind = 'model' | 'tenant' | 'dominant';

/**
 * Tenant-safe vector search over memory_embeddings. A shared HNSW index with a per-user filter
 * returns far fewer than k rows at low selectivity, so the plan is chosen by the size of the
 * caller's candidate set (what they may read: own, team, shared; the tenant for an admin): an
 * exact scan below `exactScanMaxRows` (exact and fast for small sets), the model's partial HNSW
 * index with `hnsw.iterative_scan = strict_order` above it (the walk continues until k rows pass
 * the filters, in distance order). A search sizes the set with the exact query itself (it stops
 * gathering at the threshold), so a small caller's search is one statement; a set found large is
 * remembered for `largeSetTtlMs` (LargeSetMemo), so a team member's recall does not re-read the
 * threshold's worth of rows each time. `choosePlan` and the duplicates plan size by a bounded
 * count instead. All settings are `SET LOCAL`, so they end with the caller's transaction.
 */
@Injectable()
export class MemoryVectorRepository {
  private readonly largeSets: LargeSetMemo;

  constructor(@Inject(MEMORY_VECTOR_OPTIONS) private readonly options: MemoryVectorOptions) {
    this.largeSets = new LargeSetMemo(options.largeSetTtlMs ?? DEFAULT_LARGE_SET_TTL_MS);
  }

  /** Nearest live memories the caller may read (`visibleMemorySql`), nearest first. */
  async search(scope: TenantScope, tx: Tx, input: VectorSearchInput): Promise<VectorHit[]> {
    return (await this.searchDetailed(scope, tx, input)).hits;
  }

  /** `search` plus how it was answered (for `explain` output and tests). */
  async searchDetailed(scope: TenantScope, tx: Tx, input: VectorSearchInput): Promise<VectorSearchResult> {
    return this.nearestWithPlan(scope, tx, 'visible', { ...input, filters: input.filters ?? {} });
  }

  /** The caller's own live memories nearest to a vector (dedup check), nearest first. */
  async nearest(scope: TenantScope, tx: Tx, input: NearestInput): Promise<VectorHit[]> {
    return (await this.nearestWithPlan(scope, tx, 'own', input)).hits;
  }

  /** Near-duplicate pairs among the caller's own memories (bounded by `scanCap` probes). */
  async nearDuplicatePairs(
    scope: TenantScope,
    tx: Tx,
    input: NearDuplicatesInput,
  ): Promise<NearDuplicatePair[]> {
    assertCount('limit', input.limit, 1, MAX_K);
    // Cost is scanCap probes (HNSW) or scanCap × the owner's rows (< exactScanMaxRows) distances.
    assertCount('scanCap', input.scanCap, 1, MAX_SCAN_CAP);
    if (!(input.threshold >= -1 && input.threshold <= 1))
      throw new RangeError('threshold must be within [-1, 1]');
    const plan = await this.duplicatesPlan(scope, tx, input);
    const { sql, params } = buildNearDuplicatesQuery(plan, scope, input);
    const query = () => tx.query<{ first_id: string; second_id: string; similarity: number }>(sql, params);
    const { rows } =
      plan === 'hnsw' ? (await this.withIndexPlan(tx, scope, input.modelId, 1, query)).result : await query();
    return rows.map((r) => ({
      firstId: Number(r.first_id),
      secondId: Number(r.second_id),
      similarity: Number(r.similarity),
    }));
  }

  /** Exact while scanned memories × the owner's rows stays within DUPLICATES_EXACT_BUDGET. */
  async duplicatesPlan(scope: TenantScope, tx: Tx, input: NearDuplicatesInput): Promise<VectorPlan> {
    const own = await this.countCandidates(scope, tx, 'own', input.modelId);
    const exactWork = own * Math.min(input.scanCap, own);
    return own < this.options.exactScanMaxRows && exactWork <= DUPLICATES_EXACT_BUDGET ? 'exact' : 'hnsw';
  }

  /** The plan the bounded candidate count selects for this caller and model. */
  async choosePlan(scope: TenantScope, tx: Tx, reach: VectorReach, modelId: string): Promise<VectorPlan> {
    return (await this.countCandidates(scope, tx, reach, modelId)) < this.options.exactScanMaxRows
      ? 'exact'
      : 'hnsw';
  }

  /** EXPLAIN of the query a plan would run, with the same settings (tests and diagnostics). */
  async explain(scope: TenantScope, tx: Tx, input: VectorSearchInput, plan: VectorPlan): Promise<string> {
    assertCount('k', input.k, 1, MAX_K);
    const { sql, params } = buildNearestQuery(plan, 'visible', scope, input);
    const explain = () => tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${sql}`, params);
    const { rows } =
      plan === 'hnsw'
        ? (await this.withIndexPlan(tx, scope, input.modelId, input.k, explain)).result
        : await explain();
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  private async nearestWithPlan(
    scope: TenantScope,
    tx: Tx,
    reach: VectorReach,
    spec: VectorQuerySpec,
  ): Promise<VectorSearchResult> {
    assertCount('k', spec.k, 1, MAX_K);
    const cap = this.options.exactScanMaxRows;
    const key = largeSetKey(scope, reach, spec.modelId);
    if (cap > 0 && !this.largeSets.isLarge(key)) {
      // Sizing and the exact answer in one statement: below the cap the gathered rows are the
      // caller's whole set, so the answer stands; at the cap the set is large and the index walks.
      const exact = await this.runSized(
        buildNearestQuery('exact', reach, scope, { ...spec, sizeCap: cap }),
        tx,
      );
      if (exact.candidates < cap) return { plan: 'exact', exactFallback: false, index: null, ...exact };
      this.largeSets.remember(key, true);
    }
    const candidates = Math.max(cap, 0);
    const { result: hits, index } = await this.withIndexPlan(tx, scope, spec.modelId, spec.k, () =>
      this.run(buildNearestQuery('hnsw', reach, scope, spec), tx, true),
    );
    if (hits.length >= spec.k) return { plan: 'hnsw', exactFallback: false, candidates, index, hits };
    // Iterative scan stops at max_scan_tuples; with selective filters that can leave it short.
    // The exact form narrows by the filters through the memories indexes first, so it is cheap then.
    const exact = await this.run(buildNearestQuery('exact', reach, scope, spec), tx, true);
    return {
      plan: 'hnsw',
      exactFallback: exact.length > hits.length,
      candidates,
      index,
      hits: exact.length > hits.length ? exact : hits,
    };
  }

  private async countCandidates(
    scope: TenantScope,
    tx: Tx,
    reach: VectorReach,
    modelId: string,
  ): Promise<number> {
    const cap = this.options.exactScanMaxRows;
    if (cap <= 0) return 0;
    const key = largeSetKey(scope, reach, modelId);
    if (this.largeSets.isLarge(key)) return cap;
    const { sql, params } = buildCandidateCountQuery(reach, scope, modelId, cap);
    const { rows } = await tx.query<{ n: number }>(sql, params);
    const n = Number(rows[0]?.n ?? 0);
    this.largeSets.remember(key, n >= cap);
    return n;
  }

  /**
   * Runs `work` with the index walk configured: ef_search, strict-order iterative scan and its
   * tuple cap (left in place for the transaction; only vector scans read them), and sorting
   * disabled for the planner while `work` runs. At low selectivity the planner would otherwise
   * prefer fetching the caller's rows through the memories indexes and sorting them, which is
   * the exact plan's job; when we chose the index, the HNSW scan must be the only cheap way to
   * produce rows in distance order. enable_sort is restored afterwards so later statements in
   * the caller's transaction (the text leg) are planned normally.
   */
  private async withIndexPlan<T>(
    tx: Tx,
    scope: TenantScope,
    modelId: string,
    k: number,
    work: () => Promise<T>,
  ): Promise<{ result: T; index: VectorIndexKind }> {
    // The walk names its model and tenant as literals (buildNearestQuery), so its plan — made once
    // per connection in a generic-plans transaction — matches the partial indexes; the tenant's own,
    // once its build has finished, is the smaller one, so the planner takes it. ef_search follows from
    // which one it is and how many rows it holds (its statistics' estimate), decided in this statement.
    const ef = (kind: VectorIndexKind, large: boolean) =>
      String(efSearchFor(k, kind, large ? LARGE_HNSW_ROWS : 0));
    const { rows } = await tx.query<{ enable_sort: string; kind: VectorIndexKind }>(
      `WITH walk AS (
         SELECT CASE WHEN coalesce((SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass($3)), false)
                     THEN 'tenant'
                     WHEN obj_description(to_regclass($5), 'pg_class') = $6 THEN 'dominant'
                     ELSE 'model' END AS kind),
       sized AS (
         SELECT walk.kind,
                coalesce((SELECT c.reltuples FROM pg_class c
                           WHERE c.oid = to_regclass(CASE walk.kind WHEN 'tenant' THEN $3 ELSE $5 END)), 0) >= $8
                  AS large
           FROM walk)
       SELECT current_setting('enable_sort') AS enable_sort,
              sized.kind,
              set_config('hnsw.ef_search',
                         CASE WHEN sized.large
                              THEN CASE sized.kind WHEN 'tenant' THEN $10 WHEN 'dominant' THEN $11 ELSE $9 END
                              ELSE CASE sized.kind WHEN 'tenant' THEN $4 WHEN 'dominant' THEN $7 ELSE $1 END
                         END, true),
              set_config('hnsw.iterative_scan', 'strict_order', true),
              set_config('hnsw.max_scan_tuples', $2, true),
              set_config('enable_sort', 'off', true)
         FROM sized`,
      [
        ef('model', false),
        String(this.options.maxScanTuples ?? DEFAULT_MAX_SCAN_TUPLES),
        tenantHnswIndexName(modelId, scope.tenantId),
        ef('tenant', false),
        hnswIndexName(modelId),
        dominantTenantComment(scope.tenantId),
        ef('dominant', false),
        LARGE_HNSW_ROWS,
        ef('model', true),
        ef('tenant', true),
        ef('dominant', true),
      ],
      { prepared: true },
    );
    const result = await work();
    await tx.query(`SELECT set_config('enable_sort', $1, true)`, [rows[0]?.enable_sort ?? 'on'], {
      prepared: true,
    });
    return { result, index: rows[0]?.kind ?? 'model' };
  }

  /**
   * The exact form is prepared: its plan depends on the caller only through parameters, and
   * planning its branches costs several times running them for a small set (3.4 ms against
   * 0.8 ms for a member with 100 memories), so in a transaction with generic plans it is planned
   * once per connection.
   */
  private async run(query: BuiltQuery, tx: Tx, prepared = false): Promise<VectorHit[]> {
    const { rows } = await tx.query<{ memory_id: string; distance: number }>(query.sql, query.params, {
      prepared,
    });
    return rows.map((r) => ({ memoryId: Number(r.memory_id), distance: Number(r.distance) }));
  }

  /** An exact query built with `sizeCap`: its hits, and how many candidates it gathered. */
  private async runSized(query: BuiltQuery, tx: Tx): Promise<{ candidates: number; hits: VectorHit[] }> {
    const { rows } = await tx.query<{ memory_id: string | null; distance: number; candidates: string }>(
      query.sql,
      query.params,
      { prepared: true },
    );
    return {
      candidates: Number(rows[0]?.candidates ?? 0),
      hits: rows
        .filter((r) => r.memory_id !== null)
        .map((r) => ({ memoryId: Number(r.memory_id), distance: Number(r.distance) })),
    };
  }
}

/** Whose set a LargeSetMemo entry describes. */
function largeSetKey(scope: TenantScope, reach: VectorReach, modelId: string): string {
  return [reach, isAdminScope(scope), modelId, scope.tenantId, scope.userId].join('/');
}

function assertCount(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer between ${min} and ${max}, got ${value}`);
  }
}
