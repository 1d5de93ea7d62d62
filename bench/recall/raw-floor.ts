import type { Client } from 'pg';
import { type Principal } from '@app/tenancy';
import { MemoryTextSearchRepository } from '@app/recall/testing';
import { efSearchFor } from '@app/recall/testing';
import { buildNearestQuery, type VectorPlan } from '@app/recall/testing';
import { type LoadedModel } from '@app/embeddings/testing';
import { dominantTenantComment, hnswIndexName, tenantHnswIndexName } from '@app/embeddings';
import type { ActiveModel } from '../harness/bulk-loader';
import { summariseLatencies } from '../metrics';
import type { FloorTextIndexes } from './floor-text-index';
import { inCallerContext, rawTx } from './raw-tx';

/** pgvector's iterative-scan budget the repository sets by default (`hnsw.max_scan_tuples`). */
export const FLOOR_MAX_SCAN_TUPLES = 20_000;

/** The physical floor of one hybrid recall, part by part (ms). */
export interface FloorParts {
  /** One raw model call for the query text. */
  readonly embedMs: number;
  /** `TenantTextIndex.search` on the tenant's loaded index. */
  readonly indexMs: number;
  /**
   * The vector leg's top k on the floor's copy of the tenant's in-memory vector index (its graph, or
   * every readable vector for a small set); the repository's statement where the floor holds no vectors.
   */
  readonly vectorMs: number;
  /** The served rows by id, in one transaction as the application role under the caller's RLS. */
  readonly rowsMs: number;
}

export interface FloorTiming extends FloorParts {
  /** The sum of the parts: the least one hybrid recall can cost. */
  readonly totalMs: number;
}

/** One floor query: the caller, the text, and the vector plan the repository picks for that caller. */
export interface FloorQuery {
  readonly principal: Principal;
  readonly text: string;
  readonly plan: VectorPlan;
}

/**
 * The least work one hybrid recall can physically do, each part timed on its own:
 * 1. one raw model call for the query (`embedBatch`, no batcher, no cache);
 * 2. the text leg's top k as a tight in-process call on the tenant's loaded index (the query's
 *    lexemes and the caller's shares read beforehand, untimed);
 * 3. the vector leg's top k as a tight in-process call on the floor's copy of the tenant's vector
 *    index (as the text leg: the same `TenantVectorIndex` and graph an API process holds), or, where
 *    recall's vector leg runs in Postgres, its nearest-neighbour statement with the plan the
 *    repository picks, over a plain `pg` connection as the schema owner;
 * 4. the `limit` served rows read by id in one statement, in a transaction as the application role
 *    with the caller's RLS settings, as the service must read them.
 * Everything else the service does — pool checkout, the delta statement, ranking facts, thread
 * neighbours, fusion, supersession, links — is its own overhead, which the ratio exposes.
 *
 * `sqlTextLeg` times the text leg's Postgres fallback (`recall_text_search`, what recall ran before
 * the index and still runs while a tenant loads) on its own: reported beside the floor, not in it.
 */
export class RecallFloor {
  private readonly sql = new MemoryTextSearchRepository();
  private efTenant: string | null = null;

  private constructor(
    private readonly pg: Client,
    private readonly options: FloorOptions,
  ) {}

  /** The HNSW settings are set once for the session, so the floor pays no SET per query. */
  static async create(options: FloorOptions & { readonly pg: Client }): Promise<RecallFloor> {
    await options.pg.query(
      `SELECT set_config('hnsw.ef_search', $1, false), set_config('hnsw.iterative_scan', 'strict_order', false),
              set_config('hnsw.max_scan_tuples', $2, false)`,
      [String(efSearchFor(options.k)), String(FLOOR_MAX_SCAN_TUPLES)],
    );
    return new RecallFloor(options.pg, options);
  }

  /** Loads or refreshes the callers' indexes, reads their shares and tokenises the texts: call it before timing. */
  prepare(callers: readonly Principal[], texts: readonly string[]): Promise<void> {
    return this.options.texts.prepare(this.pg, callers, texts);
  }

  /** `prepare` for these queries' callers and texts. */
  prepareFor(queries: readonly { principal: Principal; text: string }[]): Promise<void> {
    return this.prepare(
      queries.map((q) => q.principal),
      queries.map((q) => q.text),
    );
  }

  async run(q: FloorQuery): Promise<FloorTiming> {
    const { k, limit, model, active } = this.options;
    if (q.plan === 'hnsw' && !this.options.texts.holdsVectors) await this.indexFor(q.principal.tenantId);
    const t0 = performance.now();
    const [vector] = this.options.withVectorLeg ? await model.embedBatch([q.text]) : [];
    const t1 = performance.now();
    const textIds = this.options.texts.search(q.principal, q.text, k).map((h) => h.memoryId);
    const t2 = performance.now();
    let vectorIds: number[] = [];
    const local = vector ? this.options.texts.nearest(q.principal, vector, k) : null;
    if (local) {
      vectorIds = local.hits.map((h) => h.memoryId);
    } else if (vector) {
      const query = buildNearestQuery(q.plan, 'visible', q.principal, {
        modelId: active.id,
        dimensions: active.dimensions,
        vector,
        k,
        filters: {},
        sizeCap: q.plan === 'exact' ? this.options.exactScanMaxRows : undefined,
      });
      const { rows } = await this.pg.query<{ memory_id: string | null }>(query.sql, query.params);
      vectorIds = rows.flatMap((r) => (r.memory_id === null ? [] : [Number(r.memory_id)]));
    }
    const t3 = performance.now();
    const ids = servedIds(textIds, vectorIds, limit);
    await inCallerContext(this.pg, q.principal, this.options.appRole, () =>
      this.pg.query(`SELECT * FROM memories WHERE id = ANY($1::bigint[])`, [ids]),
    );
    const t4 = performance.now();
    return { embedMs: t1 - t0, indexMs: t2 - t1, vectorMs: t3 - t2, rowsMs: t4 - t3, totalMs: t4 - t0 };
  }

  /**
   * ef_search for the index the walk will use, as recall picks it (the tenant's own index once
   * built, else the model's shared one): set untimed, once per tenant in a row.
   */
  private async indexFor(tenantId: string): Promise<void> {
    if (this.efTenant === tenantId) return;
    const own = tenantHnswIndexName(this.options.active.id, tenantId);
    const shared = hnswIndexName(this.options.active.id);
    const { rows } = await this.pg.query<{
      own: boolean;
      dominant: boolean;
      own_rows: number;
      shared_rows: number;
    }>(
      `SELECT coalesce((SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)), false) AS own,
              coalesce(obj_description(to_regclass($2), 'pg_class') = $3, false) AS dominant,
              coalesce((SELECT reltuples FROM pg_class WHERE oid = to_regclass($1)), 0) AS own_rows,
              coalesce((SELECT reltuples FROM pg_class WHERE oid = to_regclass($2)), 0) AS shared_rows`,
      [own, shared, dominantTenantComment(tenantId)],
    );
    const kind = rows[0]?.own ? 'tenant' : rows[0]?.dominant ? 'dominant' : 'model';
    const indexRows = Number((kind === 'tenant' ? rows[0]?.own_rows : rows[0]?.shared_rows) ?? 0);
    await this.pg.query(`SELECT set_config('hnsw.ef_search', $1, false)`, [
      String(efSearchFor(this.options.k, kind, indexRows)),
    ]);
    this.efTenant = tenantId;
  }

  /** The Postgres text leg alone (the fallback), in ms; the caller's settings are set untimed. */
  async sqlTextLeg(q: Pick<FloorQuery, 'principal' | 'text'>): Promise<number> {
    // recall_text_search reads the caller from the settings, as the service's transaction sets them.
    await this.pg.query(
      `SELECT set_config('app.tenant_id', $1, false), set_config('app.user_id', $2, false)`,
      [q.principal.tenantId, q.principal.userId],
    );
    const started = performance.now();
    await this.sql.search(q.principal, rawTx(this.pg), { text: q.text, k: this.options.k, filter: {} });
    return performance.now() - started;
  }
}

export interface FloorOptions {
  readonly model: LoadedModel;
  readonly active: ActiveModel;
  /** Each leg's depth (recall's max(limit × 3, 30)). */
  readonly k: number;
  /** Rows served (recall's limit). */
  readonly limit: number;
  readonly exactScanMaxRows: number;
  /** False while recall runs without its vector leg: the floor then skips the model and vector SQL too. */
  readonly withVectorLeg: boolean;
  /** The role requests run as (DATABASE_APP_ROLE), for the row fetch under RLS. */
  readonly appRole: string;
  /** The floor's copy of the tenants' text indexes (shared by every lane of a run). */
  readonly texts: FloorTextIndexes;
}

/**
 * The rows one recall serves: fusion takes them from both legs, so the floor reads the legs' ids
 * alternately, best first, until `limit` distinct ones.
 */
export function servedIds(text: readonly number[], vector: readonly number[], limit: number): number[] {
  const served = new Set<number>();
  for (let i = 0; served.size < limit && (i < text.length || i < vector.length); i += 1) {
    if (i < text.length) served.add(text[i]);
    if (i < vector.length && served.size < limit) served.add(vector[i]);
  }
  return [...served];
}

/** Collects floor timings and answers the median of each part. */
export class FloorPartsRecorder {
  private readonly parts = {
    embed: [] as number[],
    index: [] as number[],
    vector: [] as number[],
    rows: [] as number[],
  };

  record(timing: FloorTiming): number {
    this.parts.embed.push(timing.embedMs);
    this.parts.index.push(timing.indexMs);
    this.parts.vector.push(timing.vectorMs);
    this.parts.rows.push(timing.rowsMs);
    return timing.totalMs;
  }

  medians(): FloorParts {
    const p50 = (values: number[]) => summariseLatencies(values).p50;
    return {
      embedMs: p50(this.parts.embed),
      indexMs: p50(this.parts.index),
      vectorMs: p50(this.parts.vector),
      rowsMs: p50(this.parts.rows),
    };
  }
}
