import { describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { LocalSecretStore } from './local/local-secret-store.adapter';
import { NoSecretStore } from './no-secret-store';
import { createSecretStore, vaultAuthFrom } from './secret-store.factory';
import { secretPath } from './secret-ref';
import { SecretStoreErrorCode } from './secret-store.errors';
import { VaultSecretStore } from './vault/vault-secret-store.adapter';

const secretsConfig = (env: Record<string, string>) => loadConfig(env).secrets;
const ref = { tenantId: 't1', userId: 'u1', memoryId: 7 };

describe('createSecretStore', () => {
  it('prefers Vault, then the local key, then refuses', async () => {
    const vault = createSecretStore(
      secretsConfig({
        VAULT_ADDR: 'http://127.0.0.1:1',
        VAULT_TOKEN: 't',
        MEMORY_ENCRYPTION_KEY: 'a'.repeat(64),
      }),
    );
    expect(vault).toBeInstanceOf(VaultSecretStore);
    (vault as VaultSecretStore).close();
    expect(createSecretStore(secretsConfig({ MEMORY_ENCRYPTION_KEY: 'a'.repeat(64) }))).toBeInstanceOf(
      LocalSecretStore,
    );
    const none = createSecretStore(secretsConfig({}));
    expect(none).toBeInstanceOf(NoSecretStore);
    await expect(none.put(ref, 'x')).rejects.toMatchObject({
      code: SecretStoreErrorCode.Unavailable,
      message: expect.stringContaining('MEMORY_ENCRYPTION_KEY'),
    });
  });

  it('picks AppRole or Kubernetes over a static token and requires some credential', () => {
    const base = secretsConfig({
      VAULT_ADDR: 'http://vault:8200',
      VAULT_TOKEN: 't',
      VAULT_ROLE_ID: 'r',
      VAULT_SECRET_ID: 's',
    }).vault;
    expect(vaultAuthFrom(base).kind).toBe('approle');
    expect(vaultAuthFrom({ ...base, roleId: undefined, k8sRole: 'memsvc' })).toMatchObject({
      kind: 'kubernetes',
      tokenPath: '/var/run/secrets/kubernetes.io/serviceaccount/token',
    });
    expect(vaultAuthFrom({ ...base, roleId: undefined }).kind).toBe('token');
    expect(() => vaultAuthFrom({ ...base, roleId: undefined, token: undefined })).toThrow(/VAULT_TOKEN/);
  });

  it('validates the new variables and hides secret values', () => {
    expect(() => loadConfig({ MEMORY_ENCRYPTION_KEY: 'short' })).toThrow(
      /MEMORY_ENCRYPTION_KEY.*value hidden/,
    );
    expect(() => loadConfig({ VAULT_ADDR: 'vault:8200' })).toThrow(/VAULT_ADDR/);
    expect(loadConfig({}).secrets.vault).toMatchObject({
      mount: 'secret',
      prefix: 'memory-service',
      timeoutMs: 3000,
    });
  });
});

describe('secretPath', () => {
  it('builds the path from server ids only', () => {
    expect(secretPath('memory-service', ref)).toBe('memory-service/t1/u1/mem-7');
    expect(() => secretPath('p', { ...ref, userId: '../admin' })).toThrow(TypeError);
    expect(() => secretPath('p', { ...ref, memoryId: 'a/b' })).toThrow(TypeError);
  });
});
