import { createHmac, scryptSync } from 'node:crypto';

/** Key-encryption key plus a short id that tells "wrong key" apart from "tampered ciphertext". */
export interface KeyEncryptionKey {
  readonly key: Buffer;
  /** First 8 bytes of HMAC(key, "kid"), base64url; safe to store, reveals nothing usable. */
  readonly id: string;
}

/**
 * Salt for passphrases when the installation supplies none. Fixed so the same passphrase gives the
 * same key after a restart (the key is never stored); an installation can pass its own salt.
 */
export const DEFAULT_KDF_SALT = 'memory-service/local-secret-store/v1';
const HEX_KEY = /^[0-9a-fA-F]{64}$/;
// 2^15 × 8 × 128 B = 32 MiB, ~50–100 ms once at boot: slows passphrase guessing, not requests.
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;

/** 64 hex characters: the raw 256-bit key, used as is (no salt involved). */
export const isRawKey = (secret: string): boolean => HEX_KEY.test(secret);

/** `MEMORY_ENCRYPTION_KEY`: 64 hex chars are the raw 256-bit key; anything else is a passphrase. */
export function deriveKeyEncryptionKey(secret: string, salt: string = DEFAULT_KDF_SALT): KeyEncryptionKey {
  const key = isRawKey(secret)
    ? Buffer.from(secret, 'hex')
    : scryptSync(secret.normalize('NFKC'), salt, 32, SCRYPT);
  const id = createHmac('sha256', key).update('kid').digest().subarray(0, 8).toString('base64url');
  return { key, id };
}
