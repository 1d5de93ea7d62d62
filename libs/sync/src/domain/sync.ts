import { type Memory } from '@app/memories';

/** A user's position in their own change history (one `sync_state` row; defaults if none yet). */
export interface SyncState {
  readonly lastSeq: number;
  readonly minValidSeq: number;
  readonly epoch: number;
}

export const INITIAL_SYNC_STATE: SyncState = { lastSeq: 0, minValidSeq: 0, epoch: 1 };

/** A memory as sync reports it: live or soft-deleted (`deletedAt` set), with its change number. */
export interface SyncedMemory extends Memory {
  readonly changeSeq: number;
}

/** A purged memory: clients drop the id. */
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
