import { createHmac, timingSafeEqual } from 'node:crypto';
import { SyncError, SyncErrorCode } from './sync.errors';

/**
 * What a cursor says about user `u`'s copy: every change up to position `(x, m)` is applied;
 * audience changes below `k` are already reflected in it (0: none); the user's own rows below `o`
 * are already in it (a seed dump; 0: none); `e` is the tenant's history epoch; `a` says whether an
 * admin key (which sees the whole tenant) followed it.
 */
export interface SyncCursorPayload {
  readonly u: string;
  readonly x: number;
  readonly m: number;
  readonly k: number;
  readonly o: number;
  readonly e: number;
  readonly a: boolean;
}

/** Payload format version; cursors of the per-user numbering had none. */
const VERSION = 2;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const B64URL = /^[A-Za-z0-9_-]+$/;
/** Cursors are short; refuse to HMAC or parse anything large. */
const MAX_CURSOR_LENGTH = 512;

const invalid = () => new SyncError(SyncErrorCode.InvalidCursor, 'Invalid sync cursor');

/**
 * `base64url(JSON payload) "." base64url(HMAC-SHA256(key, encoded payload))`. Opaque to clients;
 * the signature stops them from forging a position (e.g. skipping ahead past a purge horizon).
 */
export class SyncCursorCodec {
  constructor(private readonly key: Buffer) {
    if (key.length < 32) throw new Error('sync cursor key must be at least 32 bytes');
  }

  encode(payload: SyncCursorPayload): string {
    const { u, x, m, k, o, e, a } = payload;
    const body = Buffer.from(JSON.stringify({ v: VERSION, u, x, m, k, o, e, a: a ? 1 : 0 })).toString(
      'base64url',
    );
    return `${body}.${this.sign(body).toString('base64url')}`;
  }

  /**
   * Verifies the signature and that the cursor belongs to `userId`; throws `invalid_cursor`
   * otherwise, and `epoch_changed` for a genuine cursor of the previous numbering.
   */
  decode(cursor: string, userId: string): SyncCursorPayload {
    if (cursor.length > MAX_CURSOR_LENGTH) throw invalid();
    const [body, signature, ...rest] = cursor.split('.');
    if (rest.length > 0 || !body || !signature || !B64URL.test(body) || !B64URL.test(signature))
      throw invalid();
    const given = Buffer.from(signature, 'base64url');
    const expected = this.sign(body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    return parsePayload(Buffer.from(body, 'base64url').toString('utf8'), userId);
  }

  private sign(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest();
  }
}

const position = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

function parsePayload(json: string, userId: string): SyncCursorPayload {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw invalid();
  }
  if (typeof value !== 'object' || value === null) throw invalid();
  const { v, u, x, m, k, o, e, a } = value as Record<string, unknown>;
  if (typeof u !== 'string' || !UUID.test(u)) throw invalid();
  // Signed by us but for someone else: as useless to this caller as a forged one.
  if (u.toLowerCase() !== userId.toLowerCase()) throw invalid();
  if (v === undefined) {
    throw new SyncError(
      SyncErrorCode.EpochChanged,
      'The sync numbering changed since this cursor was issued; seed again without a cursor',
    );
  }
  if (v !== VERSION || ![x, m, k, o].every(position)) throw invalid();
  if (typeof e !== 'number' || !Number.isSafeInteger(e) || e < 1 || (a !== 0 && a !== 1)) throw invalid();
  return { u, x: x as number, m: m as number, k: k as number, o: o as number, e, a: a === 1 };
}
