import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SyncCursorCodec, type SyncCursorPayload } from './sync-cursor';
import { SyncError, SyncErrorCode } from './sync.errors';

const KEY = Buffer.alloc(32, 7);
const USER = '0b7f2c1e-9d3a-4c5b-8e6f-1a2b3c4d5e6f';
const payload: SyncCursorPayload = { u: USER, x: 123456, m: 42, k: 130000, o: 130000, e: 3, a: true };
const codec = new SyncCursorCodec(KEY);
const signed = (body: object) => {
  const encoded = Buffer.from(JSON.stringify(body)).toString('base64url');
  return `${encoded}.${createHmac('sha256', KEY).update(encoded).digest('base64url')}`;
};
const codeOf = (cursor: string, user = USER) => {
  try {
    codec.decode(cursor, user);
  } catch (error) {
    if (error instanceof SyncError) return error.code;
    throw error;
  }
  return 'decoded';
};

describe('SyncCursorCodec', () => {
  it('round-trips a position and stays short', () => {
    const cursor = codec.encode(payload);
    expect(codec.decode(cursor, USER.toUpperCase())).toEqual(payload);
    expect(cursor.length).toBeLessThan(300);
  });

  it('refuses another key’s signature, another user’s cursor and malformed payloads', () => {
    expect(codeOf(new SyncCursorCodec(Buffer.alloc(32, 8)).encode(payload))).toBe(
      SyncErrorCode.InvalidCursor,
    );
    expect(codeOf(codec.encode(payload), '1b7f2c1e-9d3a-4c5b-8e6f-1a2b3c4d5e6f')).toBe(
      SyncErrorCode.InvalidCursor,
    );
    expect(codeOf(signed({ ...payload, v: 2, a: 1, x: -1 }))).toBe(SyncErrorCode.InvalidCursor);
    expect(codeOf(signed({ ...payload, v: 3, a: 1 }))).toBe(SyncErrorCode.InvalidCursor);
    expect(codeOf(signed({ ...payload, v: 2, a: true }))).toBe(SyncErrorCode.InvalidCursor);
  });

  it('answers epoch_changed for a genuine cursor of the per-user numbering', () => {
    expect(codeOf(signed({ u: USER, s: 41, e: 1 }))).toBe(SyncErrorCode.EpochChanged);
  });
});
