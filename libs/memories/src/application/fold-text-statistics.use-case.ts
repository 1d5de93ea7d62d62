import { Inject, Injectable } from '@nestjs/common';
import { HandlesJob } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { TextStatisticsRepository } from '../adapters/text-statistics.repository';
import { foldAllDeltas } from './fold-deltas';

/**
 * `memories.fold-text-stats`: moves the term-statistics deltas memory writes append (one row per
 * change, so concurrent writers never share a row) into the per-tenant totals. Recall reads the
 * totals plus whatever is still pending, so a fold changes no score; it keeps the pending rows a
 * recall has to add up few. Every 10 seconds; a fold already running makes the next one a no-op.
 */
@Injectable()
export class FoldTextStatisticsUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(TextStatisticsRepository) private readonly statistics: TextStatisticsRepository,
  ) {}

  @HandlesJob('memories.fold-text-stats', {
    schedule: { slotMs: 10_000, enqueueEveryMs: 5_000, idPrefix: 'fold-text-stats' },
  })
  async onSchedule(): Promise<void> {
    await this.execute();
  }

  /** Folds every pending delta; returns how many. */
  execute(): Promise<number> {
    return foldAllDeltas(this.tx, (tx, batch) => this.statistics.fold(tx, batch));
  }
}
