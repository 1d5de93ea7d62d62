import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { HandlesJob, OutboxWriter, type JobPayload } from '@app/jobs';
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
 *
 * When a worker sees that Redis lost its data (a marker key is missing: flushed, restarted or failed
 * over without it), the same job runs at once with `queueLost`, so those jobs come back within
 * seconds instead of after INDEX_RECONCILE_AFTER_MS.
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

  /** Once per INDEX_RECONCILE_EVERY_MS cluster-wide (leader-free: the slot is the job id), and after a queue loss. */
  @HandlesJob('embeddings.reconcile', {
    schedule: (config) => ({
      slotMs: config.embeddings.reconcile.everyMs,
      enqueueEveryMs: Math.min(config.embeddings.reconcile.everyMs, 60_000),
      idPrefix: 'index-reconcile',
      runAfterQueueLoss: true,
    }),
  })
  async onSchedule(payload: JobPayload<'embeddings.reconcile'>): Promise<void> {
    if (payload.queueLost) {
      const requeued = await this.afterQueueLoss();
      this.logger.warn(
        `the job queue lost its jobs: re-enqueued ${requeued} memories waiting for their index`,
      );
      return;
    }
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

  /**
   * After the queue lost its jobs: every live memory pending since before this run began, whose job
   * is no longer waiting in the outbox, had it in the lost queue — however young it is, so there is
   * no age threshold. Re-enqueues all of them, batch after batch. The cutoff stays at the run's
   * start: memories claimed or written since are not taken again, so the loop ends under load too.
   * A memory whose job reached the new Redis before this run gets a second job, which finds its
   * input indexed and writes nothing.
   */
  async afterQueueLoss(): Promise<number> {
    const started = Date.now();
    const { batch } = this.config.embeddings.reconcile;
    let total = 0;
    for (;;) {
      const requeued = await this.requeue(Date.now() - started);
      total += requeued;
      if (requeued < batch) return total;
    }
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
