import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { MeteredSecretStore, SECRET_STORE_ERRORS_METRIC } from './metered-secret-store';
import { SecretStoreError } from './secret-store.errors';
import type { SecretStore } from './secret-store.port';

const ref = { tenantId: 't', userId: 'u', memoryId: 1 } as never;

function fakeVault(failure?: Error): SecretStore {
  return {
    kind: 'vault',
    put: async () => {
      if (failure) throw failure;
      return { ref: 'secret/data/x', version: 1 };
    },
    get: async () => {
      if (failure) throw failure;
      return 'hunter2';
    },
    locate: () => 'secret/data/x',
    delete: async () => undefined,
  };
}

describe('MeteredSecretStore', () => {
  it('passes calls through and counts failures by store, operation and code', async () => {
    const registry = new Registry();
    const healthy = new MeteredSecretStore(fakeVault(), registry);
    expect(await healthy.get(ref)).toBe('hunter2');
    expect(healthy.kind).toBe('vault');

    const sealed = new MeteredSecretStore(
      fakeVault(SecretStoreError.unavailable('Vault is sealed')),
      registry,
    );
    await expect(sealed.put(ref, 'x')).rejects.toThrow('Vault is sealed');
    await expect(sealed.get(ref)).rejects.toThrow('Vault is sealed');
    const broken = new MeteredSecretStore(fakeVault(new Error('bug')), registry);
    await expect(broken.get(ref)).rejects.toThrow('bug');

    const text = await registry.metrics();
    expect(text).toContain(
      `${SECRET_STORE_ERRORS_METRIC}{store="vault",operation="put",code="unavailable"} 1`,
    );
    expect(text).toContain(
      `${SECRET_STORE_ERRORS_METRIC}{store="vault",operation="get",code="unavailable"} 1`,
    );
    expect(text).toContain(`${SECRET_STORE_ERRORS_METRIC}{store="vault",operation="get",code="error"} 1`);
  });
});
