import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Managed API keys look like `msk_<32 base62>_<6 base62 checksum>`.
 *
 * - ~190 bits of randomness in the body.
 * - The checksum (CRC32 of the body in base62) lets us reject typos and truncations before
 *   touching the database, and lets secret scanners tell a real key from look-alike text.
 * - Only sha256(key) is stored; lookups go by that hash, so no secret is compared in app code.
 *
 * The `msk_` prefix is reserved: a key that starts with it must be well formed. Keys without the
 * prefix are "opaque" and only valid when they were configured through the environment
 * (seed-compatible `API_KEYS='{"alice":"any-string-key"}'`).
 */
export const API_KEY_PREFIX = 'msk_';
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Longest opaque key accepted (the env schema allows 512). Longer input is rejected unhashed. */
export const MAX_API_KEY_LENGTH = 512;

/** Matches a managed key anywhere in text; used by secret detection. Verify with `isWellFormedApiKey`. */
export const API_KEY_PATTERN = /msk_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}/g;
const FULL_KEY = /^msk_([0-9A-Za-z]{32})_([0-9A-Za-z]{6})$/;

/** `managed`: well-formed msk_ key; `opaque`: env-only legacy key; `invalid`: reject without a lookup. */
export type ApiKeyFormat = 'managed' | 'opaque' | 'invalid';

export function generateApiKey(): string {
  const body = randomBase62(BODY_LENGTH);
  return `${API_KEY_PREFIX}${body}_${checksumOf(body)}`;
}

export function checksumOf(body: string): string {
  return toBase62(crc32(body)).padStart(CHECKSUM_LENGTH, '0');
}

export function isWellFormedApiKey(raw: string): boolean {
  const match = FULL_KEY.exec(raw);
  return match !== null && checksumOf(match[1]) === match[2];
}

export function classifyApiKey(raw: string): ApiKeyFormat {
  if (raw.length === 0 || raw.length > MAX_API_KEY_LENGTH) return 'invalid';
  if (raw.startsWith(API_KEY_PREFIX)) return isWellFormedApiKey(raw) ? 'managed' : 'invalid';
  return 'opaque';
}

export function hashApiKey(raw: string): Buffer {
  return createHash('sha256').update(raw, 'utf8').digest();
}

/**
 * What admins see to tell keys apart. Managed keys show their first 8 random characters (about
 * 48 of 190 bits). Opaque env keys may be short and guessable, so they show a hash fingerprint
 * instead of any of their characters.
 */
export function displayPrefixOf(raw: string): string {
  if (classifyApiKey(raw) === 'managed') return raw.slice(0, API_KEY_PREFIX.length + 8);
  return `sha256:${hashApiKey(raw).toString('hex').slice(0, 8)}`;
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // Rejection sampling keeps every character equally likely (248 = 4 * 62).
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function toBase62(value: number): string {
  let n = value >>> 0;
  let out = '';
  do {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out;
}
