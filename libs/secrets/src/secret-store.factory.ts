import { type AppConfig } from '@app/config';
import { deriveKeyEncryptionKey, DEFAULT_KDF_SALT } from './local/encryption-key';
import { LocalSecretStore } from './local/local-secret-store.adapter';
import { NoSecretStore, type ConfiguredSecretStore } from './no-secret-store';
import type { VaultAuthMethod } from './vault/vault-auth';
import { VaultSecretStore } from './vault/vault-secret-store.adapter';

/** What the write path receives: a real store, or one that refuses sensitive writes with 503. */
export type { ConfiguredSecretStore };

export interface SecretStoreFactoryOptions {
  /** Per-install salt for passphrase keys (e.g. kept next to the data); defaults to a fixed one. */
  readonly kdfSalt?: string;
}

/** Vault (VAULT_ADDR set) > local encryption (MEMORY_ENCRYPTION_KEY set) > none. */
export function createSecretStore(
  config: AppConfig['secrets'],
  options: SecretStoreFactoryOptions = {},
): ConfiguredSecretStore {
  const vault = config.vault;
  if (vault.address) {
    return new VaultSecretStore({
      address: vault.address,
      auth: vaultAuthFrom(vault),
      mount: vault.mount,
      prefix: vault.prefix,
      timeoutMs: vault.timeoutMs,
    });
  }
  if (config.encryptionKey) {
    return new LocalSecretStore(
      deriveKeyEncryptionKey(config.encryptionKey, options.kdfSalt ?? DEFAULT_KDF_SALT),
    );
  }
  return new NoSecretStore();
}

/** AppRole > Kubernetes > static token: the renewable methods win when several are configured. */
export function vaultAuthFrom(vault: AppConfig['secrets']['vault']): VaultAuthMethod {
  if (vault.roleId && vault.secretId)
    return { kind: 'approle', roleId: vault.roleId, secretId: vault.secretId };
  if (vault.k8sRole) return { kind: 'kubernetes', role: vault.k8sRole, tokenPath: vault.k8sTokenPath };
  if (vault.token) return { kind: 'token', token: vault.token };
  throw new Error(
    'VAULT_ADDR is set but no Vault credentials are: set VAULT_TOKEN, VAULT_ROLE_ID and VAULT_SECRET_ID, or VAULT_K8S_ROLE',
  );
}
