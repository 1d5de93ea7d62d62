import { type Memory } from '@app/memories';

/**
 * A feed position: the transaction that made a change, then the memory it touched. Positions of
 * finished transactions (below the read's horizon) are settled: nothing new ever appears below it.
 */
export interface SyncPosition {
  readonly xid: number;
  readonly memoryId: number;
}

/** What a read learned about the caller's history, in the same snapshot as its rows. */
export interface SyncHistoryState {
  /** Bumped by `sync_reset_history()`: older cursors answer 409. */
  readonly epoch: number;
  /** Cursors whose knowledge is older than this missed removed history: 410. */
  readonly minValidSeq: number;
  /** The next transaction id: no honest cursor points past it. */
  readonly nextXid: number;
  /** Every transaction below it has finished: the feed never returns a position at or above it. */
  readonly horizon: number;
}

/** A memory as sync reports it: live or soft-deleted (`deletedAt` set), with its position's xid. */
export interface SyncedMemory extends Memory {
  readonly changeSeq: number;
}

/** A memory the caller can no longer see (purged, unshared, made private, …): clients drop the id. */
export interface SyncTombstone {
  readonly id: number;
  readonly deletedAt: string;
  readonly changeSeq: number;
}

export interface SyncPage {
  readonly memories: readonly SyncedMemory[];
  readonly tombstones: readonly SyncTombstone[];
  readonly nextCursor: string;
  readonly hasMore: boolean;
  readonly serverTime: string;
}

/** What the seed-compatible calls stream: a header known before the rows, then the rows. */
export interface SeedDumpHeader {
  readonly nextCursor: string;
  readonly serverTime: string;
}

export interface SyncSettings {
  readonly pageDefault: number;
  readonly pageMax: number;
  readonly tombstoneRetentionDays: number;
  readonly sinceOverlapMs: number;
}

export const SYNC_SETTINGS = Symbol('SYNC_SETTINGS');
