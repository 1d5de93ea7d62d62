import { Inject, Injectable, Logger } from '@nestjs/common';
import { analyzeTables, staleTables, TransactionRunner } from '@app/persistence';
import { HandlesJob } from '../handles-job.decorator';
import type { JobPayload } from '../job-definitions';

/** A table counts as stale after this many changed rows and this share of its rows. */
const STALE = { minChanges: 500, fraction: 0.1 } as const;

/**
 * `maintenance.analyze`: keeps the planner's statistics current without relying on autovacuum
 * (which may be slow, or off). Every five minutes it analyzes the tables that changed enough since
 * their last ANALYZE; a bulk write (an import) asks for its tables at once. Stale statistics made
 * a user's 7,500 memories look like 1 row and turned `check` from milliseconds into 14 s.
 */
@Injectable()
export class AnalyzeStatisticsJob {
  private readonly logger = new Logger('AnalyzeStatistics');

  constructor(@Inject(TransactionRunner) private readonly tx: TransactionRunner) {}

  @HandlesJob('maintenance.analyze', {
    schedule: { slotMs: 5 * 60_000, enqueueEveryMs: 60_000, idPrefix: 'analyze' },
  })
  async run(payload: JobPayload<'maintenance.analyze'>): Promise<void> {
    // ANALYZE samples a bounded number of rows, but on a big table it still takes a while.
    const analyzed = await this.tx.asSystem(
      async (tx) => {
        const tables = payload.tables ?? (await staleTables(tx, STALE));
        await analyzeTables(tx, tables);
        return tables;
      },
      { unbounded: true },
    );
    if (analyzed.length > 0) this.logger.log(`analyzed ${analyzed.join(', ')}`);
  }
}
