import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { HandlesJob, OutboxWriter } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { MemoryIndexStateRepository } from '../adapters/memory-index-state.repository';

export interface ReconcileResult {
  /** Live memories whose lost job was recorded again. */
  readonly requeued: number;
  /** Soft-deleted memories whose pending state was settled as `skipped`. */
  readonly skipped: number;
}

/**
 * The reconciliation sweep: a live memory whose index state stayed `pending` past
 * INDEX_RECONCILE_AFTER_MS lost its `memory.index` job somewhere between the outbox and a worker
 * (Redis flushed or failed over, an add that was dropped). The sweep records a new job for it in the
 * outbox, in the same transaction that claims it. Indexing is idempotent, so a job that was only
 * slow and runs after all does no harm: each version is still embedded once. A soft-deleted or
 * expired memory wants no index and is never re-queued; a deleted one's pending state is settled as
 * `skipped` (a restore marks it pending again, with a job).
 */
@Injectable()
export class ReconcileIndexUseCase {
  private readonly logger = new Logger('IndexReconcile');

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(MemoryIndexStateRepository) private readonly states: MemoryIndexStateRepository,
    @Inject(OutboxWriter) private readonly outbox: OutboxWriter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Once per INDEX_RECONCILE_EVERY_MS cluster-wide (leader-free: the slot is the job id). */
  @HandlesJob('embeddings.reconcile', {
    schedule: (config) => ({
      slotMs: config.embeddings.reconcile.everyMs,
      enqueueEveryMs: Math.min(config.embeddings.reconcile.everyMs, 60_000),
      idPrefix: 'index-reconcile',
    }),
  })
  async onSchedule(): Promise<void> {
    const { requeued, skipped } = await this.execute();
    if (requeued > 0) this.logger.warn(`re-enqueued ${requeued} memories whose index job was lost`);
    if (skipped > 0) this.logger.log(`${skipped} deleted memories no longer wait for their index`);
  }

  /** Re-enqueues one batch of stale pending live memories and settles deleted ones. */
  async execute(): Promise<ReconcileResult> {
    const { afterMs, batch } = this.config.embeddings.reconcile;
    const skipped = await this.tx.asSystem((tx) =>
      this.states.skipDeletedPending(tx, { olderThanMs: afterMs, limit: batch }),
    );
    return { requeued: await this.requeue(afterMs), skipped };
  }

  /** Claims one batch of memories pending longer than `olderThanMs` and records their jobs again. */
  private async requeue(olderThanMs: number): Promise<number> {
    const { batch } = this.config.embeddings.reconcile;
    return this.tx.asSystem(async (tx) => {
      const stale = await this.states.claimStalePending(tx, { olderThanMs, limit: batch });
      for (const memory of stale) {
        const scope = { tenantId: memory.tenantId, userId: memory.ownerId };
        await this.outbox.enqueue(scope, tx, {
          name: 'memory.index',
          payload: { ...scope, memoryId: memory.memoryId, contentHash: memory.wantedHash },
        });
      }
      return stale.length;
    });
  }
}
