import type { SyncHistoryState, SyncPosition } from './sync';
import type { SyncCursorPayload } from './sync-cursor';
import { SyncError, SyncErrorCode } from './sync.errors';

/** Where a read of the feed starts. */
export interface SyncReadFrom {
  /** Changes strictly after this position. */
  readonly after: SyncPosition;
  /** Audience changes below this are already reflected in the copy; null: the read's own horizon. */
  readonly recordsFrom: number | null;
  /** The caller's own rows below this are already in the copy (after a seed dump); 0: none. */
  readonly ownRowsFrom: number;
}

/**
 * No cursor: the copy is empty, so every visible row is news and no audience change is: a
 * tombstone could only name a memory the caller does not have (or never could see).
 */
export function readFrom(cursor: SyncCursorPayload | null): SyncReadFrom {
  if (cursor === null) return { after: { xid: 0, memoryId: 0 }, recordsFrom: null, ownRowsFrom: 0 };
  return { after: { xid: cursor.x, memoryId: cursor.m }, recordsFrom: cursor.k, ownRowsFrom: cursor.o };
}

/**
 * A cursor is usable when it was issued for the same reach (admin or not: an admin key sees the
 * whole tenant, a member key would never be told what it lost), in this epoch, and everything it
 * still needs is retained. Epoch first: after a reset the numbers themselves mean something else.
 */
export function assertUsable(cursor: SyncCursorPayload, state: SyncHistoryState, admin: boolean): void {
  if (cursor.a !== admin) {
    throw new SyncError(
      SyncErrorCode.InvalidCursor,
      'This cursor was issued to a key with a different reach (admin or member); seed again without a cursor',
    );
  }
  if (cursor.e !== state.epoch || Math.max(cursor.x, cursor.k, cursor.o) > state.nextXid) {
    throw new SyncError(
      SyncErrorCode.EpochChanged,
      'The sync history was reset since this cursor was issued; seed again without a cursor',
    );
  }
  const knownUpTo = Math.max(cursor.x, cursor.k);
  if (knownUpTo > 0 && knownUpTo < state.minValidSeq) {
    throw new SyncError(
      SyncErrorCode.FullResyncRequired,
      'The cursor is older than the retained deletion history; seed again without a cursor',
    );
  }
}

export interface CursorAfterRead {
  readonly userId: string;
  readonly admin: boolean;
  readonly from: SyncReadFrom;
  readonly state: SyncHistoryState;
  /** The last change the page covered (null: none). */
  readonly last: SyncPosition | null;
  readonly hasMore: boolean;
}

/**
 * The cursor after a page: its last change when more follows; otherwise the read's horizon, since
 * every change below it was in the page. Moving up to the horizon also keeps the next read from
 * walking again over changes the caller cannot see. Bounds the cursor has passed are dropped.
 */
export function cursorAfter(read: CursorAfterRead): SyncCursorPayload {
  const { from, state } = read;
  const at =
    read.hasMore && read.last !== null
      ? read.last
      : from.after.xid >= state.horizon
        ? from.after
        : { xid: state.horizon, memoryId: 0 };
  const recordsFrom = from.recordsFrom ?? state.horizon;
  return {
    u: read.userId,
    x: at.xid,
    m: at.memoryId,
    k: recordsFrom > at.xid ? recordsFrom : 0,
    o: from.ownRowsFrom > at.xid ? from.ownRowsFrom : 0,
    e: state.epoch,
    a: read.admin,
  };
}
