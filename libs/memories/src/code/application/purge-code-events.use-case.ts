import { Injectable, Logger } from '@nestjs/common';
import { HandlesJob } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { CodeEventRepository } from '../adapters/code-event.repository';

/** Applied code events are kept this long (what changed, for whoever looks at an anchor's change). */
export const CODE_EVENT_RETENTION_DAYS = 30;
const PURGE_BATCH = 1000;

/**
 * `code-events.purge`: deletes applied code events older than CODE_EVENT_RETENTION_DAYS in every
 * tenant, in batches, once per hourly slot. The anchors they changed keep the change's facts.
 */
@Injectable()
export class PurgeCodeEventsUseCase {
  private readonly logger = new Logger('CodeEvents');

  constructor(
    private readonly tx: TransactionRunner,
    private readonly events: CodeEventRepository,
  ) {}

  @HandlesJob('code-events.purge', {
    schedule: { slotMs: 60 * 60_000, enqueueEveryMs: 5 * 60_000, idPrefix: 'code-events-purge' },
  })
  async onSchedule(): Promise<void> {
    const removed = await this.execute();
    if (removed > 0)
      this.logger.log(`deleted ${removed} code events older than ${CODE_EVENT_RETENTION_DAYS} days`);
  }

  async execute(days = CODE_EVENT_RETENTION_DAYS): Promise<number> {
    let total = 0;
    for (;;) {
      const removed = await this.tx.asSystem((tx) => this.events.purgeApplied(tx, days, PURGE_BATCH));
      total += removed;
      if (removed < PURGE_BATCH) return total;
    }
  }
}
