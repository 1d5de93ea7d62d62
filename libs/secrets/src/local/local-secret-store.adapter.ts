import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { secretPath, type SecretRef } from '../secret-ref';
import { SecretStoreError, SecretStoreErrorCode } from '../secret-store.errors';
import type { SecretStore, StoredSecret } from '../secret-store.port';
import type { KeyEncryptionKey } from './encryption-key';

/**
 * AES-256-GCM envelope encryption for installs without Vault. Each secret gets a random data key;
 * the data key is wrapped by the key-encryption key from MEMORY_ENCRYPTION_KEY. The result is a
 * self-describing string the row stores:
 *
 *   enc:v1:<kid>.<wrapped data key>.<iv>.<ciphertext+tag>      (each part base64url)
 *
 * The ciphertext is bound to its tenant/user/memory (GCM additional data), so copying it to
 * another row fails authentication like any other tampering.
 */
export const CIPHERTEXT_PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const WRAP_AAD = Buffer.from('memory-service:data-key:v1');

export class LocalSecretStore implements SecretStore {
  readonly kind = 'encrypted' as const;

  constructor(private readonly kek: KeyEncryptionKey) {}

  async put(ref: SecretRef, content: string): Promise<StoredSecret> {
    return { ref: this.encrypt(ref, content) };
  }

  async get(ref: SecretRef, stored: Partial<StoredSecret> = {}): Promise<string> {
    if (stored.ref === undefined)
      throw new SecretStoreError(SecretStoreErrorCode.NotFound, 'no ciphertext stored for this memory');
    return this.decrypt(ref, stored.ref);
  }

  locate(_ref: SecretRef): null {
    return null;
  }

  /** The ciphertext lives in the row; deleting the row deletes the secret. */
  async delete(_ref: SecretRef): Promise<void> {}

  encrypt(ref: SecretRef, content: string): string {
    const dataKey = randomBytes(32);
    const wrapped = seal(this.kek.key, dataKey, WRAP_AAD);
    const body = seal(dataKey, Buffer.from(content, 'utf8'), boundTo(ref));
    dataKey.fill(0);
    return `${CIPHERTEXT_PREFIX}${this.kek.id}.${wrapped.toString('base64url')}.${body.toString('base64url')}`;
  }

  decrypt(ref: SecretRef, stored: string): string {
    const parts = stored.startsWith(CIPHERTEXT_PREFIX)
      ? stored.slice(CIPHERTEXT_PREFIX.length).split('.')
      : [];
    if (parts.length !== 3) throw denied('not an enc:v1 ciphertext');
    const [kid, wrapped, body] = parts as [string, string, string];
    if (kid !== this.kek.id) throw denied('encrypted with a different MEMORY_ENCRYPTION_KEY');
    const dataKey = open(this.kek.key, Buffer.from(wrapped, 'base64url'), WRAP_AAD);
    try {
      return open(dataKey, Buffer.from(body, 'base64url'), boundTo(ref)).toString('utf8');
    } finally {
      dataKey.fill(0);
    }
  }
}

/** iv ‖ ciphertext ‖ tag. */
function seal(key: Buffer, plaintext: Buffer, aad: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const encrypted = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, encrypted, cipher.getAuthTag()]);
}

function open(key: Buffer, sealed: Buffer, aad: Buffer): Buffer {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw denied('ciphertext is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
  decipher.setAAD(aad);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    return Buffer.concat([
      decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    throw denied('ciphertext failed authentication (tampered or bound to another memory)');
  }
}

function boundTo(ref: SecretRef): Buffer {
  return Buffer.from(`memory-service:secret:v1:${secretPath('local', ref)}`);
}

function denied(reason: string): SecretStoreError {
  return new SecretStoreError(SecretStoreErrorCode.Denied, `cannot decrypt secret: ${reason}`);
}
