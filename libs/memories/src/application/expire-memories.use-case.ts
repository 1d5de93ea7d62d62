import { Inject, Injectable, Logger } from '@nestjs/common';
import { HandlesJob } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { MemoryWriteRepository } from '../write/memory-write.repository';

/** Rows soft-deleted per transaction, so a large backlog never holds many locks at once. */
export const EXPIRE_BATCH = 1000;

/**
 * `memories.expire`: soft-deletes memories past their `expires_at` (all tenants, as system). Reads
 * already leave them out the moment they expire; the soft delete makes sync report them as deleted
 * and lets the retention job purge them (and their secrets) later.
 */
@Injectable()
export class ExpireMemoriesUseCase {
  private readonly logger = new Logger('ExpireMemories');

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(MemoryWriteRepository) private readonly memories: MemoryWriteRepository,
  ) {}

  @HandlesJob('memories.expire', {
    schedule: { slotMs: 5 * 60_000, enqueueEveryMs: 60_000, idPrefix: 'memories-expire' },
  })
  async onSchedule(): Promise<void> {
    const expired = await this.execute();
    if (expired > 0) this.logger.log(`soft-deleted ${expired} expired memories`);
  }

  /** Soft-deletes every memory expired by now; returns how many. */
  async execute(): Promise<number> {
    let total = 0;
    for (;;) {
      const count = await this.tx.asSystem((tx) => this.memories.softDeleteExpired(tx, EXPIRE_BATCH));
      total += count;
      if (count < EXPIRE_BATCH) return total;
    }
  }
}
