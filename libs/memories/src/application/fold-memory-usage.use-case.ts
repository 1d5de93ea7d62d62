import { Inject, Injectable } from '@nestjs/common';
import { HandlesJob } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { MemoryUsageRepository } from '../adapters/memory-usage.repository';
import { foldAllDeltas } from './fold-deltas';

/**
 * `memories.fold-usage`: moves the usage deltas memory writes append (one row per change, so
 * concurrent writers never share a row) into the per-tenant totals quotas are checked against.
 * Readers add whatever is still pending, so a fold changes no answer; it keeps the pending rows a
 * quota check adds up few. Every 10 seconds; a fold already running makes the next one a no-op.
 */
@Injectable()
export class FoldMemoryUsageUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(MemoryUsageRepository) private readonly usage: MemoryUsageRepository,
  ) {}

  @HandlesJob('memories.fold-usage', {
    schedule: { slotMs: 10_000, enqueueEveryMs: 5_000, idPrefix: 'fold-usage' },
  })
  async onSchedule(): Promise<void> {
    await this.execute();
  }

  /** Folds every pending delta; returns how many. */
  execute(): Promise<number> {
    return foldAllDeltas(this.tx, (tx, batch) => this.usage.fold(tx, batch));
  }
}
