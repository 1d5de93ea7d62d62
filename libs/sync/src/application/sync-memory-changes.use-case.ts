import { Inject, Injectable } from '@nestjs/common';
import { ReplicaBehindError, TransactionRunner } from '@app/persistence';
import { hasScope, type Principal } from '@app/tenancy';
import { SyncFeedRepository } from '../adapters/sync-feed.repository';
import { SYNC_SETTINGS, type SyncHistoryState, type SyncPage, type SyncSettings } from '../domain/sync';
import type { SyncCursorPayload } from '../domain/sync-cursor';
import { assertUsable, cursorAfter, readFrom } from '../domain/sync-feed';
import { SyncCursorCodecProvider } from './sync-cursor-codec.provider';

export interface SyncChangesInput {
  /** Absent: start from an empty copy. */
  readonly cursor?: string;
  /** Clamped to the configured maximum; the configured default when absent. */
  readonly limit?: number;
}

/**
 * One page of changes to the memories the caller can see (own, team, shared directly or by tag;
 * with an admin key, the whole tenant) after a cursor, in position order, with the cursor to
 * continue from: each memory as the caller sees it now, or a tombstone once it can no longer.
 */
@Injectable()
export class SyncMemoryChangesUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly feed: SyncFeedRepository,
    private readonly codecs: SyncCursorCodecProvider,
    @Inject(SYNC_SETTINGS) private readonly settings: SyncSettings,
  ) {}

  async execute(principal: Principal, input: SyncChangesInput): Promise<SyncPage> {
    const limit = Math.min(input.limit ?? this.settings.pageDefault, this.settings.pageMax);
    const codec = await this.codecs.get();
    const cursor = input.cursor === undefined ? null : codec.decode(input.cursor, principal.userId);
    const admin = hasScope(principal, 'admin');
    const from = readFrom(cursor);
    // One plan for every caller: the feed's branches differ only in the ids bound.
    const read = await this.tx.inTenant(
      principal,
      async (tx) => {
        const page = await this.feed.read(principal, tx, from, limit);
        // A replica that has not yet replayed what the cursor was issued from cannot judge it (its
        // epoch and positions are older): the primary answers instead.
        if (cursor && page.standby && !usable(cursor, page.state, admin)) throw new ReplicaBehindError();
        return page;
      },
      { genericPlans: true, readOnly: true, horizonBound: true },
    );
    // Checked against the state read with the page: a purge racing the read cannot slip past it.
    if (cursor) assertUsable(cursor, read.state, admin);

    const next = cursorAfter({
      userId: principal.userId,
      admin,
      from,
      state: read.state,
      last: read.last,
      hasMore: read.hasMore,
    });
    return {
      memories: read.items.flatMap((item) => (item.kind === 'memory' ? [item.memory] : [])),
      tombstones: read.items.flatMap((item) => (item.kind === 'tombstone' ? [item.tombstone] : [])),
      nextCursor: codec.encode(next),
      hasMore: read.hasMore,
      serverTime: read.serverTime,
    };
  }
}

function usable(cursor: SyncCursorPayload, state: SyncHistoryState, admin: boolean): boolean {
  try {
    assertUsable(cursor, state, admin);
    return true;
  } catch {
    return false;
  }
}
