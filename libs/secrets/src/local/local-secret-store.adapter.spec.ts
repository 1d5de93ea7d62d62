import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SecretStoreErrorCode } from '../secret-store.errors';
import { deriveKeyEncryptionKey } from './encryption-key';
import { CIPHERTEXT_PREFIX, LocalSecretStore } from './local-secret-store.adapter';

const ref = { tenantId: 't1', userId: 'u1', memoryId: 42 };
const hexKey = (): string => randomBytes(32).toString('hex');

describe('LocalSecretStore', () => {
  const store = new LocalSecretStore(deriveKeyEncryptionKey(hexKey()));

  it('round-trips any text through a self-describing ciphertext that does not contain it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 300, unit: 'grapheme' }), async (content) => {
        const { ref: stored } = await store.put(ref, content);
        expect(stored.startsWith(CIPHERTEXT_PREFIX)).toBe(true);
        expect(stored.split('.')).toHaveLength(3);
        if (content.length >= 8) expect(stored).not.toContain(content);
        expect(await store.get(ref, { ref: stored })).toBe(content);
      }),
      { numRuns: 100 },
    );
  });

  it('uses a fresh data key and iv per secret', async () => {
    const a = (await store.put(ref, 'same text')).ref;
    const b = (await store.put(ref, 'same text')).ref;
    expect(a).not.toBe(b);
  });

  it('rejects any flipped character as tampering', async () => {
    const stored = (await store.put(ref, 'postgres://admin:pa55@db/app')).ref;
    const body = stored.slice(CIPHERTEXT_PREFIX.length);
    const kidEnd = body.indexOf('.') + 1;
    for (let i = kidEnd; i < body.length; i += 7) {
      if (body[i] === '.') continue;
      const flipped = body.slice(0, i) + (body[i] === 'A' ? 'B' : 'A') + body.slice(i + 1);
      await expect(store.get(ref, { ref: CIPHERTEXT_PREFIX + flipped })).rejects.toMatchObject({
        code: SecretStoreErrorCode.Denied,
      });
    }
    await expect(store.get(ref, { ref: stored.slice(0, -10) })).rejects.toMatchObject({
      code: SecretStoreErrorCode.Denied,
    });
  });

  it('refuses a ciphertext moved to another memory, user or tenant', async () => {
    const stored = (await store.put(ref, 'token-abc')).ref;
    for (const other of [
      { ...ref, memoryId: 43 },
      { ...ref, userId: 'u2' },
      { ...ref, tenantId: 't2' },
    ]) {
      await expect(store.get(other, { ref: stored })).rejects.toMatchObject({
        code: SecretStoreErrorCode.Denied,
      });
    }
  });

  it('says so when the key is different', async () => {
    const stored = (await store.put(ref, 'token-abc')).ref;
    const other = new LocalSecretStore(deriveKeyEncryptionKey(hexKey()));
    await expect(other.get(ref, { ref: stored })).rejects.toThrow(/different MEMORY_ENCRYPTION_KEY/);
  });

  it('reports not_found without a stored ciphertext and rejects foreign formats', async () => {
    await expect(store.get(ref)).rejects.toMatchObject({ code: SecretStoreErrorCode.NotFound });
    await expect(store.get(ref, { ref: 'plaintext' })).rejects.toMatchObject({
      code: SecretStoreErrorCode.Denied,
    });
  });
});

describe('deriveKeyEncryptionKey', () => {
  it('uses 64 hex characters as the raw key', () => {
    const hex = hexKey();
    expect(deriveKeyEncryptionKey(hex).key.toString('hex')).toBe(hex);
  });

  it('stretches a passphrase deterministically per salt', () => {
    const a = deriveKeyEncryptionKey('correct horse battery staple');
    const b = deriveKeyEncryptionKey('correct horse battery staple');
    const salted = deriveKeyEncryptionKey('correct horse battery staple', 'install-123');
    expect(a.key.equals(b.key)).toBe(true);
    expect(a.id).toBe(b.id);
    expect(a.key).toHaveLength(32);
    expect(salted.key.equals(a.key)).toBe(false);
    expect(deriveKeyEncryptionKey('correct horse battery stapl3').key.equals(a.key)).toBe(false);
  });

  it('decrypts after a restart with the same passphrase', async () => {
    const stored = (
      await new LocalSecretStore(deriveKeyEncryptionKey('a long passphrase here')).put(ref, 's3cr3t')
    ).ref;
    expect(
      await new LocalSecretStore(deriveKeyEncryptionKey('a long passphrase here')).get(ref, { ref: stored }),
    ).toBe('s3cr3t');
  });
});
