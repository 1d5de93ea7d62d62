import type { SecretRef } from './secret-ref';

export type SecretStoreKind = 'vault' | 'encrypted';

export interface StoredSecret {
  /**
   * What the row keeps to find the secret again: the Vault path for `vault`, the self-describing
   * ciphertext (`enc:v1:…`) for `encrypted`.
   */
  readonly ref: string;
  /** KV v2 version written; absent for local encryption. */
  readonly version?: number;
}

export interface PutSecretOptions {
  readonly overwrite?: boolean;
}

/**
 * Where original secret text goes; rows keep only `[REDACTED:<kind>]`.
 * Every method throws `SecretStoreError` with a code; none ever falls back to plaintext.
 */
export interface SecretStore {
  readonly kind: SecretStoreKind;
  /**
   * Creates the secret; fails with `conflict` if one already exists for this ref, unless
   * `overwrite` is set (an update writes a new version next to the one its row still points at).
   */
  put(ref: SecretRef, content: string, options?: PutSecretOptions): Promise<StoredSecret>;
  /**
   * `stored` is what `put` returned: the local adapter needs the ciphertext (`ref`), Vault reads
   * exactly `version` (the latest when absent).
   */
  get(ref: SecretRef, stored?: Partial<StoredSecret>): Promise<string>;
  /**
   * Where the secret for `ref` lives when it lives outside the row (the Vault path, which is also
   * what `put` returns as `ref`); null when the row itself holds the ciphertext.
   */
  locate(ref: SecretRef): string | null;
  /** Removes every version; deleting a missing secret is not an error (cleanup may run twice). */
  delete(ref: SecretRef): Promise<void>;
}

export const SECRET_STORE = Symbol('SECRET_STORE');
