import type { Client } from 'pg';
import { type Tx } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { MemoryTextSearchRepository } from '@app/recall/testing';
import { efSearchFor } from '@app/recall/testing';
import { buildNearestQuery, type VectorPlan } from '@app/recall/testing';
import { type LoadedModel } from '@app/embeddings/testing';
import type { ActiveModel } from '../harness/bulk-loader';

/** pgvector's iterative-scan budget the repository sets by default (`hnsw.max_scan_tuples`). */
export const FLOOR_MAX_SCAN_TUPLES = 20_000;

export interface FloorTiming {
  readonly embedMs: number;
  readonly textMs: number;
  readonly vectorMs: number;
  readonly totalMs: number;
}

/** A `Tx` over a bare pg client: the repositories' SQL, sent as-is, with no transaction or RLS context. */
export function rawTx(pg: Client): Tx {
  return {
    async query<Row>(sql: string, params?: readonly unknown[]) {
      const result = await pg.query(sql, params ? [...params] : undefined);
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    },
    // Autocommit: each statement has committed when it returns.
    afterCommit: (callback) => callback(),
  };
}

/**
 * The least work one hybrid recall can do: one raw model call for the query, the text leg's SQL
 * (its one BM25 statement, exactly as MemoryTextSearchRepository issues it:
 * `recall_text_search`, which reads the caller from session settings set outside the timing)
 * and the vector leg's nearest-neighbour statement (built by the same builder the repository
 * uses; the exact form stops gathering at the threshold, as the repository's does), over a plain
 * `pg` connection as the schema owner. Left out on purpose, because they are the service's own
 * overhead the ratio is meant to expose: the pool checkout, the transaction and RLS context,
 * fusion, thread neighbours, supersession, and loading the result rows and links.
 */
export class RecallFloor {
  private readonly text = new MemoryTextSearchRepository();
  private readonly tx: Tx;

  private constructor(
    private readonly pg: Client,
    private readonly model: LoadedModel,
    private readonly active: ActiveModel,
    private readonly exactScanMaxRows: number,
    private readonly withVectorLeg: boolean,
  ) {
    this.tx = rawTx(pg);
  }

  /** The HNSW settings are set once for the session, so the floor pays no SET per query. */
  static async create(options: {
    pg: Client;
    model: LoadedModel;
    active: ActiveModel;
    k: number;
    exactScanMaxRows: number;
    /** False while recall runs without its vector leg: the floor then skips the model and vector SQL too. */
    withVectorLeg: boolean;
  }): Promise<RecallFloor> {
    await options.pg.query(
      `SELECT set_config('hnsw.ef_search', $1, false), set_config('hnsw.iterative_scan', 'strict_order', false),
              set_config('hnsw.max_scan_tuples', $2, false)`,
      [String(efSearchFor(options.k)), String(FLOOR_MAX_SCAN_TUPLES)],
    );
    return new RecallFloor(
      options.pg,
      options.model,
      options.active,
      options.exactScanMaxRows,
      options.withVectorLeg,
    );
  }

  /**
   * `plan`: the one the repository picks for this caller, so both sides run the same statement.
   * `asRole`: run the statements inside a transaction as the application role with the caller's
   * RLS context, as the service does; the difference to the plain floor is what RLS costs.
   */
  async run(
    principal: Principal,
    text: string,
    k: number,
    plan: VectorPlan,
    asRole?: string,
  ): Promise<FloorTiming> {
    if (!asRole) {
      // recall_text_search reads the caller from the settings: set them, untimed, for the session.
      await this.pg.query(
        `SELECT set_config('app.tenant_id', $1, false), set_config('app.user_id', $2, false)`,
        [principal.tenantId, principal.userId],
      );
      return this.statements(principal, text, k, plan);
    }
    const started = performance.now();
    await this.pg.query('BEGIN');
    try {
      await this.pg.query(
        `SELECT set_config('role', $1, true), set_config('app.tenant_id', $2, true), set_config('app.user_id', $3, true)`,
        [asRole, principal.tenantId, principal.userId],
      );
      const timing = await this.statements(principal, text, k, plan);
      await this.pg.query('COMMIT');
      return { ...timing, totalMs: performance.now() - started };
    } catch (error) {
      await this.pg.query('ROLLBACK');
      throw error;
    }
  }

  private async statements(
    principal: Principal,
    text: string,
    k: number,
    plan: VectorPlan,
  ): Promise<FloorTiming> {
    const t0 = performance.now();
    const [vector] = this.withVectorLeg ? await this.model.embedBatch([text]) : [];
    const t1 = performance.now();
    await this.text.search(principal, this.tx, { text, k, filter: {} });
    const t2 = performance.now();
    if (!vector) return { embedMs: 0, textMs: t2 - t1, vectorMs: 0, totalMs: t2 - t0 };
    const query = buildNearestQuery(plan, 'visible', principal, {
      modelId: this.active.id,
      dimensions: this.active.dimensions,
      vector,
      k,
      filters: {},
      sizeCap: plan === 'exact' ? this.exactScanMaxRows : undefined,
    });
    await this.pg.query(query.sql, query.params);
    const t3 = performance.now();
    return { embedMs: t1 - t0, textMs: t2 - t1, vectorMs: t3 - t2, totalMs: t3 - t0 };
  }
}
