import { Inject, Injectable, Logger } from '@nestjs/common';
import { HandlesJob } from '@app/jobs';
import { TransactionRunner, type Tx } from '@app/persistence';
import { SyncRetentionRepository } from '../adapters/sync-retention.repository';
import { SYNC_SETTINGS, type SyncSettings } from '../domain/sync';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows per transaction: keeps locks and WAL per step small on a large backlog. */
export const SYNC_PURGE_BATCH = 1000;

export interface SyncPurgeResult {
  readonly memories: number;
  readonly tombstones: number;
}

/** One retention run per slot. */
export const SYNC_PURGE_SLOT_MS = 60 * 60 * 1000;

/**
 * Retention for deletion history (system job, all tenants): hard-deletes memories soft-deleted
 * before the horizon and drops audience changes (the source of tombstones) older than it, raising
 * each affected tenant's `min_valid_seq` so cursors from before the horizon get 410 instead of
 * silently missing a removal.
 */
@Injectable()
export class SyncPurgeTombstonesUseCase {
  private readonly logger = new Logger('SyncPurgeTombstones');

  constructor(
    private readonly tx: TransactionRunner,
    private readonly retention: SyncRetentionRepository,
    @Inject(SYNC_SETTINGS) private readonly settings: SyncSettings,
  ) {}

  /** `sync.purge-tombstones`: one retention run per hour cluster-wide. */
  @HandlesJob('sync.purge-tombstones', {
    schedule: { slotMs: SYNC_PURGE_SLOT_MS, enqueueEveryMs: 5 * 60_000, idPrefix: 'sync-purge' },
  })
  async onSchedule(): Promise<void> {
    const result = await this.execute();
    if (result.memories + result.tombstones > 0) {
      this.logger.log(`purged ${result.memories} deleted memories and ${result.tombstones} tombstones`);
    }
  }

  async execute(now: Date = new Date()): Promise<SyncPurgeResult> {
    const horizon = new Date(now.getTime() - this.settings.tombstoneRetentionDays * DAY_MS);
    const memories = await this.drain((tx) =>
      this.retention.purgeDeletedMemories(tx, horizon, SYNC_PURGE_BATCH),
    );
    const tombstones = await this.drain((tx) =>
      this.retention.purgeAudienceChanges(tx, horizon, SYNC_PURGE_BATCH),
    );
    return { memories, tombstones };
  }

  private async drain(step: (tx: Tx) => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const removed = await this.tx.asSystem(step);
      total += removed;
      if (removed < SYNC_PURGE_BATCH) return total;
    }
  }
}
