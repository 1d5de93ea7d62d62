import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { HandlesJob } from '@app/jobs';
import { isTransactionConflict, TransactionRunner } from '@app/persistence';
import { EmbeddingModelRepository } from '../adapters/embedding-model.repository';
import { TenantVectorIndexRepository } from '../adapters/tenant-vector-index.repository';
import { tenantHnswIndexName } from '../domain/embedding-model';

export interface TenantIndexRun {
  /** False when another run held the lock (nothing was done). */
  readonly ran: boolean;
  readonly built: readonly string[];
  readonly dropped: readonly string[];
}

/** How often the check runs (one run per slot cluster-wide). */
export const TENANT_INDEX_SLOT_MS = 5 * 60_000;
/** Session advisory lock: one builder at a time across workers, also across slots. */
const TENANT_INDEX_LOCK_KEY = 7_286_110_928_031;

/**
 * Per-tenant HNSW indexes. The model's shared index holds every tenant's rows, and a recall filters
 * by tenant as it walks: the smaller a tenant's share of the install, the more of the graph it
 * walks for nothing (a 10k team beside a 100k team walked 5–8 ms per query). A tenant with
 * VECTOR_TENANT_INDEX_MIN_ROWS embeddings of a writable model gets an index of its own, which
 * recall's planner picks by its predicate; the walk then visits only the tenant's rows and needs
 * a far smaller candidate list for the same quality.
 *
 * The run builds missing indexes CONCURRENTLY (writes go on), drops failed builds (a worker that
 * died mid-build leaves an invalid index), and drops indexes whose model was retired or whose
 * tenant shrank below half the threshold. The tenant's rows stay in the shared index too, so
 * recall is served the same while an index is built or dropped.
 */
@Injectable()
export class MaintainTenantIndexesUseCase {
  /** The session advisory lock a run holds (one run at a time across workers). */
  static readonly LOCK_KEY = TENANT_INDEX_LOCK_KEY;
  private readonly logger = new Logger('TenantVectorIndexes');

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(TenantVectorIndexRepository) private readonly indexes: TenantVectorIndexRepository,
    @Inject(EmbeddingModelRepository) private readonly models: EmbeddingModelRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @HandlesJob('embeddings.tenant-indexes', {
    schedule: { slotMs: TENANT_INDEX_SLOT_MS, enqueueEveryMs: 60_000, idPrefix: 'tenant-vector-indexes' },
  })
  async onSchedule(): Promise<void> {
    const run = await this.execute();
    if (run.built.length > 0) this.logger.log(`built ${run.built.length} tenant vector indexes`);
    if (run.dropped.length > 0) this.logger.log(`dropped ${run.dropped.length} tenant vector indexes`);
  }

  async execute(): Promise<TenantIndexRun> {
    // Embedded mode is one small installation on one connection: the shared index serves it.
    if (this.config.mode === 'embedded') return { ran: false, built: [], dropped: [] };
    const minRows = this.config.embeddings.tenantIndexMinRows;
    return this.tx.maintenanceSession(async (query) => {
      const [lock] = await query<{ locked: boolean }>(`SELECT pg_try_advisory_lock($1) AS locked`, [
        TENANT_INDEX_LOCK_KEY,
      ]);
      if (!lock?.locked) return { ran: false, built: [], dropped: [] };
      const { existing, wanted, writable } = await this.tx.asSystem(
        async (tx) => {
          const sized = minRows > 0 ? await this.indexes.sized(tx, minRows) : [];
          const models = (await this.models.listWritable(tx)).map((m) => m.id);
          for (const model of models) {
            const dominant = sized.find((t) => t.dominant && t.modelId === model);
            await this.indexes.markDominant(tx, model, dominant?.tenantId ?? null);
          }
          return {
            existing: await this.indexes.list(tx),
            wanted: sized.filter((t) => !t.dominant),
            writable: new Set(models),
          };
        },
        { unbounded: true },
      );
      const built: string[] = [];
      const dropped: string[] = [];
      // Holding the lock, an invalid index is no build in progress: one that failed.
      for (const index of existing.filter((i) => !i.valid)) {
        if (await this.tolerant(index.name, () => this.indexes.drop(query, index.name)))
          dropped.push(index.name);
      }
      const valid = existing.filter((i) => i.valid);
      const present = new Set(valid.map((i) => i.name));
      for (const want of wanted) {
        const name = tenantHnswIndexName(want.modelId, want.tenantId);
        if (present.has(name)) continue;
        if (await this.tolerant(name, () => this.indexes.build(query, want))) built.push(name);
      }
      const kept = new Set(wanted.map((w) => tenantHnswIndexName(w.modelId, w.tenantId)));
      for (const index of valid.filter((i) => !kept.has(i.name))) {
        if (await this.stillPays(index, minRows, writable)) continue;
        if (await this.tolerant(index.name, () => this.indexes.drop(query, index.name)))
          dropped.push(index.name);
      }
      return { ran: true, built, dropped };
    });
  }

  /**
   * Concurrent DDL waits for every transaction that could see the table, so another DDL statement
   * on memory_embeddings at the same moment (a model's index being created) can make Postgres end one
   * of the two as a deadlock. That index is then left for the next run (an interrupted build is an
   * invalid index, which the next run drops first); other errors fail the job.
   */
  private async tolerant(name: string, ddl: () => Promise<unknown>): Promise<boolean> {
    try {
      await ddl();
      return true;
    } catch (error) {
      if (!isTransactionConflict(error)) throw error;
      this.logger.warn(`${name}: ${String((error as Error).message)}; the next run tries again`);
      return false;
    }
  }

  /** Below the threshold but above half of it, an index stays: a tenant near it does not flap. */
  private async stillPays(
    index: { modelId: string | null; tenantId: string | null },
    minRows: number,
    writable: ReadonlySet<string>,
  ): Promise<boolean> {
    const { modelId, tenantId } = index;
    if (minRows <= 0 || !modelId || !tenantId || !writable.has(modelId)) return false;
    const rows = await this.tx.asSystem((tx) => this.indexes.rows(tx, modelId, tenantId));
    return rows >= minRows / 2;
  }
}
