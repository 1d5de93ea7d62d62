import type { SecretRef } from './secret-ref';
import { SecretStoreError, SecretStoreErrorCode } from './secret-store.errors';
import type { SecretStore, StoredSecret } from './secret-store.port';

export const NO_STORE_MESSAGE =
  'This content contains a secret, and no secret store is configured, so it was not stored. ' +
  'Set VAULT_ADDR (with VAULT_TOKEN, VAULT_ROLE_ID/VAULT_SECRET_ID or VAULT_K8S_ROLE) to keep secrets in Vault, ' +
  'or MEMORY_ENCRYPTION_KEY (64 hex characters or a passphrase) to encrypt them in the database.';

/** Used when neither Vault nor a local key is configured: sensitive writes are refused, never stored in clear. */
export class NoSecretStore implements Omit<SecretStore, 'kind'> {
  readonly kind = 'none' as const;

  async put(_ref: SecretRef, _content: string): Promise<StoredSecret> {
    throw new SecretStoreError(SecretStoreErrorCode.Unavailable, NO_STORE_MESSAGE);
  }

  async get(_ref: SecretRef): Promise<string> {
    throw new SecretStoreError(SecretStoreErrorCode.Unavailable, NO_STORE_MESSAGE);
  }

  locate(_ref: SecretRef): null {
    return null;
  }

  /** Nothing can have been stored, so there is nothing to delete. */
  async delete(_ref: SecretRef): Promise<void> {}
}

/** The installation's secret store: Vault, local encryption, or none (writes of secrets refused). */
export type ConfiguredSecretStore = SecretStore | NoSecretStore;
