import { describe, expect, it } from 'vitest';
import type { SyncHistoryState } from './sync';
import type { SyncCursorPayload } from './sync-cursor';
import { assertUsable, cursorAfter, readFrom } from './sync-feed';
import { SyncError, SyncErrorCode } from './sync.errors';

const USER = '0b7f2c1e-9d3a-4c5b-8e6f-1a2b3c4d5e6f';
const state = (over: Partial<SyncHistoryState> = {}): SyncHistoryState => ({
  epoch: 1,
  minValidSeq: 0,
  nextXid: 1000,
  horizon: 900,
  ...over,
});
const cursor = (over: Partial<SyncCursorPayload> = {}): SyncCursorPayload => ({
  u: USER,
  x: 500,
  m: 7,
  k: 0,
  o: 0,
  e: 1,
  a: false,
  ...over,
});
const codeOf = (run: () => void) => {
  try {
    run();
  } catch (error) {
    if (error instanceof SyncError) return error.code;
    throw error;
  }
  return 'usable';
};

describe('readFrom', () => {
  it('starts an empty copy at the beginning, hearing of no audience change before its first read', () => {
    expect(readFrom(null)).toEqual({ after: { xid: 0, memoryId: 0 }, recordsFrom: null, ownRowsFrom: 0 });
  });

  it('continues after a cursor with its bounds', () => {
    expect(readFrom(cursor({ k: 600, o: 550 }))).toEqual({
      after: { xid: 500, memoryId: 7 },
      recordsFrom: 600,
      ownRowsFrom: 550,
    });
  });
});

describe('assertUsable', () => {
  it('accepts a cursor of this epoch and reach whose history is retained', () => {
    expect(codeOf(() => assertUsable(cursor(), state({ minValidSeq: 500 }), false))).toBe('usable');
  });

  it('refuses a cursor followed with a key of another reach', () => {
    expect(codeOf(() => assertUsable(cursor({ a: true }), state(), false))).toBe(SyncErrorCode.InvalidCursor);
    expect(codeOf(() => assertUsable(cursor(), state(), true))).toBe(SyncErrorCode.InvalidCursor);
  });

  it('answers epoch_changed after a reset or for a position the database has not reached', () => {
    expect(codeOf(() => assertUsable(cursor(), state({ epoch: 2 }), false))).toBe(SyncErrorCode.EpochChanged);
    expect(codeOf(() => assertUsable(cursor({ k: 1001 }), state(), false))).toBe(SyncErrorCode.EpochChanged);
  });

  it('answers full_resync_required when what the copy still needs was removed', () => {
    expect(codeOf(() => assertUsable(cursor(), state({ minValidSeq: 501 }), false))).toBe(
      SyncErrorCode.FullResyncRequired,
    );
    // A seed's cursor knows everything up to its horizon.
    expect(
      codeOf(() => assertUsable(cursor({ x: 0, m: 0, k: 600, o: 600 }), state({ minValidSeq: 600 }), false)),
    ).toBe('usable');
    expect(
      codeOf(() => assertUsable(cursor({ x: 0, m: 0, k: 600, o: 600 }), state({ minValidSeq: 601 }), false)),
    ).toBe(SyncErrorCode.FullResyncRequired);
  });
});

describe('cursorAfter', () => {
  const read = { userId: USER, admin: false, state: state() };

  it('stops at the last change of a full page', () => {
    const from = readFrom(cursor());
    expect(cursorAfter({ ...read, from, last: { xid: 700, memoryId: 3 }, hasMore: true })).toMatchObject({
      x: 700,
      m: 3,
    });
  });

  it('moves up to the horizon once everything below it was handed out, dropping passed bounds', () => {
    const from = readFrom(cursor({ k: 600, o: 550 }));
    expect(cursorAfter({ ...read, from, last: { xid: 700, memoryId: 3 }, hasMore: false })).toEqual({
      u: USER,
      x: 900,
      m: 0,
      k: 0,
      o: 0,
      e: 1,
      a: false,
    });
  });

  it('remembers, for a fresh copy, that audience changes before its first read are already reflected', () => {
    const next = cursorAfter({
      ...read,
      from: readFrom(null),
      last: { xid: 40, memoryId: 9 },
      hasMore: true,
    });
    expect(next).toMatchObject({ x: 40, m: 9, k: 900, o: 0 });
  });

  it('never moves back', () => {
    const from = readFrom(cursor({ x: 950, m: 0 }));
    expect(cursorAfter({ ...read, from, last: null, hasMore: false })).toMatchObject({ x: 950, m: 0 });
  });
});
