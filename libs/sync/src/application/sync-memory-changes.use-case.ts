import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { MemorySyncRepository } from '../adapters/memory-sync.repository';
import { SYNC_SETTINGS, type SyncPage, type SyncSettings, type SyncState } from '../domain/sync';
import type { SyncCursorPayload } from '../domain/sync-cursor';
import { SyncError, SyncErrorCode } from '../domain/sync.errors';
import { SyncCursorCodecProvider } from './sync-cursor-codec.provider';

export interface SyncChangesInput {
  /** Absent: start at the beginning of the caller's history. */
  readonly cursor?: string;
  /** Clamped to the configured maximum; the configured default when absent. */
  readonly limit?: number;
}

/** One page of the caller's changes after a cursor, in change order, with the cursor to continue from. */
@Injectable()
export class SyncMemoryChangesUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly repository: MemorySyncRepository,
    private readonly codecs: SyncCursorCodecProvider,
    @Inject(SYNC_SETTINGS) private readonly settings: SyncSettings,
  ) {}

  async execute(principal: Principal, input: SyncChangesInput): Promise<SyncPage> {
    const limit = Math.min(input.limit ?? this.settings.pageDefault, this.settings.pageMax);
    const codec = await this.codecs.get();
    const position = input.cursor === undefined ? null : codec.decode(input.cursor, principal.userId);
    const after = position?.s ?? 0;
    const changes = await this.tx.inTenant(principal, (tx) =>
      // One extra row of each kind tells whether another page follows.
      this.repository.changesAfter(principal, tx, after, limit + 1),
    );
    if (position) assertUsable(position, changes.state);

    const merged = [
      ...changes.memories.map((memory) => ({ seq: memory.changeSeq, memory })),
      ...changes.tombstones.map((tombstone) => ({ seq: tombstone.changeSeq, tombstone })),
    ].sort((a, b) => a.seq - b.seq);
    const page = merged.slice(0, limit);
    const last = page.length > 0 ? page[page.length - 1].seq : after;
    return {
      memories: page.flatMap((item) => ('memory' in item ? [item.memory] : [])),
      tombstones: page.flatMap((item) => ('tombstone' in item ? [item.tombstone] : [])),
      nextCursor: codec.encode({ u: principal.userId, s: last, e: changes.state.epoch }),
      hasMore: merged.length > limit,
      serverTime: changes.serverTime,
    };
  }
}

/** Epoch first: after a rewrite the numbers themselves mean something else. */
function assertUsable(position: SyncCursorPayload, state: SyncState): void {
  if (position.e !== state.epoch || position.s > state.lastSeq) {
    throw new SyncError(
      SyncErrorCode.EpochChanged,
      'The sync history was reset since this cursor was issued; seed again without a cursor',
    );
  }
  if (position.s < state.minValidSeq) {
    throw new SyncError(
      SyncErrorCode.FullResyncRequired,
      'The cursor is older than the retained deletion history; seed again without a cursor',
    );
  }
}
