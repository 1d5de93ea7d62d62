import { createHmac, timingSafeEqual } from 'node:crypto';
import { SyncError, SyncErrorCode } from './sync.errors';

/** What a cursor says: "user `u` has seen everything up to seq `s` of epoch `e`". */
export interface SyncCursorPayload {
  readonly u: string;
  readonly s: number;
  readonly e: number;
}

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
    const body = Buffer.from(JSON.stringify({ u: payload.u, s: payload.s, e: payload.e })).toString(
      'base64url',
    );
    return `${body}.${this.sign(body).toString('base64url')}`;
  }

  /** Verifies the signature and that the cursor belongs to `userId`; throws `invalid_cursor` otherwise. */
  decode(cursor: string, userId: string): SyncCursorPayload {
    if (cursor.length > MAX_CURSOR_LENGTH) throw invalid();
    const [body, signature, ...rest] = cursor.split('.');
    if (rest.length > 0 || !body || !signature || !B64URL.test(body) || !B64URL.test(signature))
      throw invalid();
    const given = Buffer.from(signature, 'base64url');
    const expected = this.sign(body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    const payload = parsePayload(Buffer.from(body, 'base64url').toString('utf8'));
    // Signed by us but for someone else: as useless to this caller as a forged one.
    if (payload.u.toLowerCase() !== userId.toLowerCase()) throw invalid();
    return payload;
  }

  private sign(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest();
  }
}

function parsePayload(json: string): SyncCursorPayload {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw invalid();
  }
  if (typeof value !== 'object' || value === null) throw invalid();
  const { u, s, e } = value as Record<string, unknown>;
  if (typeof u !== 'string' || !UUID.test(u)) throw invalid();
  if (typeof s !== 'number' || !Number.isSafeInteger(s) || s < 0) throw invalid();
  if (typeof e !== 'number' || !Number.isSafeInteger(e) || e < 1) throw invalid();
  return { u, s, e };
}
