import { Inject, Injectable, Logger } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { HandlesJob } from '../handles-job.decorator';
import { OutboxRepository } from '../outbox/outbox.repository';

/** One run per hour cluster-wide. */
export const OUTBOX_PURGE_SLOT_MS = 60 * 60 * 1000;
/** How long a dispatched row stays (for a look at what was queued); nothing reads it once dispatched. */
export const OUTBOX_DISPATCHED_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Rows per transaction: keeps each delete's locks and WAL small on a large backlog. */
export const OUTBOX_PURGE_BATCH = 5_000;

/**
 * `outbox.purge`: the outbox gains a row with every memory write and the relay only marks it
 * dispatched, so without this the table grows for ever. Deletes rows dispatched
 * OUTBOX_DISPATCHED_RETENTION_MS ago or more, in batches, once per hourly slot; rows not yet
 * dispatched (waiting, failing, or of a job a newer release knows) are never touched.
 */
@Injectable()
export class PurgeOutboxJob {
  private readonly logger = new Logger('OutboxRetention');
  private readonly outbox = new OutboxRepository();

  constructor(@Inject(TransactionRunner) private readonly tx: TransactionRunner) {}

  @HandlesJob('outbox.purge', {
    schedule: { slotMs: OUTBOX_PURGE_SLOT_MS, enqueueEveryMs: 5 * 60_000, idPrefix: 'outbox-purge' },
  })
  async run(): Promise<void> {
    const removed = await this.purge();
    if (removed > 0) this.logger.log(`deleted ${removed} dispatched outbox rows`);
  }

  /** Deletes what is past retention at `now`; returns how many rows went. */
  async purge(now: Date = new Date()): Promise<number> {
    const horizon = new Date(now.getTime() - OUTBOX_DISPATCHED_RETENTION_MS);
    let total = 0;
    for (;;) {
      const removed = await this.tx.asSystem((tx) =>
        this.outbox.purgeDispatchedBefore(tx, horizon, OUTBOX_PURGE_BATCH),
      );
      total += removed;
      if (removed < OUTBOX_PURGE_BATCH) return total;
    }
  }
}
