import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeVault } from '@app/testing';
import { SecretStoreErrorCode } from '@app/secrets';
import { VaultSecretStore, type VaultAuthMethod } from '@app/secrets/testing';

const ref = (memoryId: number) => ({ tenantId: 'tenant-a', userId: 'user-1', memoryId });

describe('VaultSecretStore through node-vault against the fake Vault', () => {
  const tokenDir = mkdtempSync(join(tmpdir(), 'k8s-token-'));
  const k8sTokenPath = join(tokenDir, 'token');
  writeFileSync(k8sTokenPath, 'sa.jwt.value\n');
  const vault = new FakeVault({
    approle: { roleId: 'role-1', secretId: 'secret-1' },
    kubernetes: { role: 'memory-service', jwt: 'sa.jwt.value' },
    loginTokenTtlSeconds: 3600,
  });
  let address = '';
  const stores: VaultSecretStore[] = [];
  const storeWith = (auth: VaultAuthMethod, timeoutMs = 1000): VaultSecretStore => {
    const store = new VaultSecretStore({
      address,
      auth,
      mount: 'secret',
      prefix: 'memory-service',
      timeoutMs,
    });
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    address = await vault.start();
  });
  afterEach(() => vault.resetFaults());
  afterAll(async () => {
    for (const store of stores) store.close();
    await vault.stop();
  });

  it('puts, gets and deletes at the documented KV v2 path with check-and-set', async () => {
    const store = storeWith({ kind: 'token', token: vault.rootToken });
    const stored = await store.put(ref(1), 'postgres://admin:S3cr3t-pa55@db:5432/app');
    expect(stored).toEqual({ ref: 'memory-service/tenant-a/user-1/mem-1', version: 1 });
    expect(vault.kv.read('memory-service/tenant-a/user-1/mem-1', 0).body).toMatchObject({
      data: { data: { content: 'postgres://admin:S3cr3t-pa55@db:5432/app' } },
    });
    expect(await store.get(ref(1))).toBe('postgres://admin:S3cr3t-pa55@db:5432/app');
    await store.delete(ref(1));
    await expect(store.get(ref(1))).rejects.toMatchObject({ code: SecretStoreErrorCode.NotFound });
    await store.delete(ref(1)); // idempotent: cleanup may run twice
  });

  it('reports conflict when a secret already exists for the memory', async () => {
    const store = storeWith({ kind: 'token', token: vault.rootToken });
    await store.put(ref(2), 'first');
    await expect(store.put(ref(2), 'second')).rejects.toMatchObject({ code: SecretStoreErrorCode.Conflict });
    expect(await store.get(ref(2))).toBe('first');
  });

  it('overwrites as a new version and reads back exactly the version a row points at', async () => {
    const store = storeWith({ kind: 'token', token: vault.rootToken });
    const first = await store.put(ref(20), 'version one');
    const second = await store.put(ref(20), 'version two', { overwrite: true });
    expect(second.version).toBe((first.version ?? 0) + 1);
    expect(await store.get(ref(20), { version: first.version })).toBe('version one');
    expect(await store.get(ref(20), second)).toBe('version two');
    expect(await store.get(ref(20))).toBe('version two');
  });

  it('renews its token at about two thirds of the TTL', async () => {
    const token = vault.issueToken({ ttlSeconds: 1, renewable: true });
    const store = storeWith({ kind: 'token', token });
    await store.put(ref(3), 'renew me');
    const before = vault.count('POST', '/v1/auth/token/renew-self');
    await new Promise((r) => setTimeout(r, 900));
    expect(vault.count('POST', '/v1/auth/token/renew-self')).toBeGreaterThan(before);
    await new Promise((r) => setTimeout(r, 600)); // past the original 1 s TTL
    expect(await store.get(ref(3))).toBe('renew me');
  });

  it('logs in with AppRole and logs in again after a 403', async () => {
    const store = storeWith({ kind: 'approle', roleId: 'role-1', secretId: 'secret-1' });
    await store.put(ref(4), 'approle secret');
    expect(vault.count('POST', '/v1/auth/approle/login')).toBe(1);
    vault.expireToken(); // revokes every non-root token
    expect(await store.get(ref(4))).toBe('approle secret');
    expect(vault.count('POST', '/v1/auth/approle/login')).toBe(2);
  });

  it('maps a rejected static token to denied, without retry loops', async () => {
    const store = storeWith({ kind: 'token', token: 'not-a-token' });
    await expect(store.put(ref(5), 'x')).rejects.toMatchObject({ code: SecretStoreErrorCode.Denied });
  });

  it('logs in with a Kubernetes service-account token read from its file', async () => {
    const store = storeWith({ kind: 'kubernetes', role: 'memory-service', tokenPath: k8sTokenPath });
    await store.put(ref(6), 'k8s secret');
    expect(await store.get(ref(6))).toBe('k8s secret');
    expect(vault.count('POST', '/v1/auth/kubernetes/login')).toBe(1);
  });

  it('fails fast with unavailable when Vault never answers', async () => {
    const store = storeWith({ kind: 'token', token: vault.rootToken }, 300);
    vault.faults.blackhole = true;
    const started = Date.now();
    await expect(store.put(ref(7), 'x')).rejects.toMatchObject({
      code: SecretStoreErrorCode.Unavailable,
      retryAfterSeconds: 5,
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('maps sealed, 429/500, malformed answers and a closed port to unavailable', async () => {
    const store = storeWith({ kind: 'token', token: vault.rootToken });
    await store.put(ref(8), 'ok');
    vault.faults.sealed = true;
    await expect(store.get(ref(8))).rejects.toMatchObject({
      code: SecretStoreErrorCode.Unavailable,
      message: expect.stringContaining('sealed'),
    });
    vault.resetFaults();
    vault.faults.failNext = { status: 429, count: 1 };
    await expect(store.get(ref(8))).rejects.toMatchObject({ code: SecretStoreErrorCode.Unavailable });
    vault.faults.failNext = { status: 500, count: 1 };
    await expect(store.put(ref(9), 'x')).rejects.toMatchObject({ code: SecretStoreErrorCode.Unavailable });
    vault.faults.failNext = undefined;
    vault.faults.malformedJson = true;
    await expect(store.get(ref(8))).rejects.toMatchObject({ code: SecretStoreErrorCode.Unavailable });
    vault.resetFaults();
    expect(await store.get(ref(8))).toBe('ok');
    const nowhere = new VaultSecretStore({
      address: 'http://127.0.0.1:1',
      auth: { kind: 'token', token: 't' },
      mount: 'secret',
      prefix: 'p',
      timeoutMs: 500,
    });
    await expect(nowhere.get(ref(1))).rejects.toMatchObject({ code: SecretStoreErrorCode.Unavailable });
  });
});
