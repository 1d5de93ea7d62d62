import { Counter, type Registry } from 'prom-client';
import type { SecretRef } from './secret-ref';
import { SecretStoreError } from './secret-store.errors';
import type { PutSecretOptions, SecretStore, StoredSecret } from './secret-store.port';

export const SECRET_STORE_ERRORS_METRIC = 'memsvc_secret_store_errors_total';

type Operation = 'put' | 'get' | 'delete';

/**
 * The configured store, counting its failures in `memsvc_secret_store_errors_total{store, operation,
 * code}` (`code`: unavailable, denied, conflict, not_found, or `error` for anything unexpected), so a
 * sealed or unreachable Vault shows on a dashboard before users report 503s.
 */
export class MeteredSecretStore implements SecretStore {
  private readonly errors: Counter<'store' | 'operation' | 'code'>;

  constructor(
    readonly inner: SecretStore,
    registry: Registry,
  ) {
    const existing = registry.getSingleMetric(SECRET_STORE_ERRORS_METRIC);
    this.errors =
      (existing as Counter<'store' | 'operation' | 'code'> | undefined) ??
      new Counter({
        name: SECRET_STORE_ERRORS_METRIC,
        help: 'Failed secret store calls, by store (vault, encrypted), operation and error code.',
        labelNames: ['store', 'operation', 'code'],
        registers: [registry],
      });
  }

  get kind() {
    return this.inner.kind;
  }

  put(ref: SecretRef, content: string, options?: PutSecretOptions): Promise<StoredSecret> {
    return this.counted('put', () => this.inner.put(ref, content, options));
  }

  get(ref: SecretRef, stored?: Partial<StoredSecret>): Promise<string> {
    return this.counted('get', () => this.inner.get(ref, stored));
  }

  locate(ref: SecretRef): string | null {
    return this.inner.locate(ref);
  }

  delete(ref: SecretRef): Promise<void> {
    return this.counted('delete', () => this.inner.delete(ref));
  }

  private async counted<T>(operation: Operation, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const code = error instanceof SecretStoreError ? error.code : 'error';
      this.errors.inc({ store: this.inner.kind, operation, code });
      throw error;
    }
  }
}
