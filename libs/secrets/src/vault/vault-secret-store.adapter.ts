import { SecretStoreError } from '../secret-store.errors';
import { secretPath, type SecretRef } from '../secret-ref';
import type { PutSecretOptions, SecretStore, StoredSecret } from '../secret-store.port';
import { canRelogin, login, renewSelf, type VaultAuthMethod, type VaultLease } from './vault-auth';
import { mapVaultError, vaultStatusOf } from './vault-error-mapper';
import { createNodeVaultClient, type NodeVaultClient } from './node-vault-client';

export interface VaultSecretStoreOptions {
  readonly address: string;
  readonly auth: VaultAuthMethod;
  readonly mount: string;
  readonly prefix: string;
  readonly timeoutMs: number;
  /** Fraction of the token TTL after which it is renewed. */
  readonly renewAt?: number;
}

interface KvWriteResponse {
  readonly data?: { readonly version?: number };
}
interface KvReadResponse {
  readonly data?: { readonly data?: { readonly content?: unknown } };
}

/**
 * Secrets in Vault KV v2 at `<mount>/data/<prefix>/<tenant>/<user>/mem-<id>` as `{content}`.
 * Creates use check-and-set 0 so a retried or concurrent write can never overwrite another secret;
 * updates write a new version and the row records which version it points at.
 */
export class VaultSecretStore implements SecretStore {
  readonly kind = 'vault' as const;
  private readonly client: NodeVaultClient;
  private session: Promise<void> | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: VaultSecretStoreOptions) {
    this.client = createNodeVaultClient({ endpoint: options.address, timeoutMs: options.timeoutMs });
  }

  async put(ref: SecretRef, content: string, options: PutSecretOptions = {}): Promise<StoredSecret> {
    const path = secretPath(this.options.prefix, ref);
    const body = options.overwrite ? { data: { content } } : { data: { content }, options: { cas: 0 } };
    const response = (await this.call('write secret', () =>
      this.client.write(`${this.options.mount}/data/${path}`, body),
    )) as KvWriteResponse;
    const version = response?.data?.version;
    if (typeof version !== 'number')
      throw SecretStoreError.unavailable('Vault answered the write with an unexpected body');
    return { ref: path, version };
  }

  async get(ref: SecretRef, stored: Partial<StoredSecret> = {}): Promise<string> {
    const path = secretPath(this.options.prefix, ref);
    const version = stored.version === undefined ? '' : `?version=${Math.trunc(stored.version)}`;
    const response = (await this.call('read secret', () =>
      this.client.read(`${this.options.mount}/data/${path}${version}`),
    )) as KvReadResponse;
    const content = response?.data?.data?.content;
    if (typeof content !== 'string')
      throw SecretStoreError.unavailable('Vault answered the read with an unexpected body');
    return content;
  }

  locate(ref: SecretRef): string {
    return secretPath(this.options.prefix, ref);
  }

  async delete(ref: SecretRef): Promise<void> {
    const path = secretPath(this.options.prefix, ref);
    // Deleting the metadata removes every version, not just the latest (a soft delete keeps data).
    await this.call('delete secret', () => this.client.delete(`${this.options.mount}/metadata/${path}`));
  }

  /** Stops the renewal timer; call on shutdown. */
  close(): void {
    this.closed = true;
    if (this.renewTimer) clearTimeout(this.renewTimer);
  }

  /** Runs one Vault call under the deadline; on 403 logs in again once (AppRole/Kubernetes) and retries. */
  private async call(action: string, run: () => Promise<unknown>): Promise<unknown> {
    try {
      await this.ensureSession();
      return await this.withDeadline(run());
    } catch (error) {
      if (vaultStatusOf(error) !== 403 || !canRelogin(this.options.auth)) throw mapVaultError(error, action);
    }
    try {
      await this.startSession(true);
      return await this.withDeadline(run());
    } catch (error) {
      throw mapVaultError(error, action);
    }
  }

  private ensureSession(): Promise<void> {
    this.session ??= this.startSession(false);
    return this.session;
  }

  /** Single-flight: concurrent 403s share one login. */
  private startSession(force: boolean): Promise<void> {
    if (force || !this.session) {
      const attempt = this.withDeadline(login(this.client, this.options.auth)).then((lease) =>
        this.scheduleRenewal(lease),
      );
      // A failed login must not stick: the next call tries again.
      this.session = attempt.catch((error: unknown) => {
        this.session = undefined;
        throw error;
      });
    }
    return this.session;
  }

  private scheduleRenewal(lease: VaultLease): void {
    if (this.renewTimer) clearTimeout(this.renewTimer);
    if (this.closed || lease.ttlSeconds <= 0) return;
    const delayMs = Math.max(1000 * lease.ttlSeconds * (this.options.renewAt ?? 2 / 3), 50);
    this.renewTimer = setTimeout(() => void this.renewOrRelogin(lease), delayMs);
    this.renewTimer.unref();
  }

  private async renewOrRelogin(lease: VaultLease): Promise<void> {
    try {
      if (!lease.renewable) throw new Error('token is not renewable');
      this.scheduleRenewal(await this.withDeadline(renewSelf(this.client)));
    } catch {
      // Renewal failed (expired, max TTL reached, Vault down): a fresh login if possible,
      // otherwise the next call finds out and maps the error.
      if (canRelogin(this.options.auth)) await this.startSession(true).catch(() => undefined);
    }
  }

  /** axios has its own timeout; this guard also bounds login and anything axios does not time. */
  private withDeadline<T>(promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(SecretStoreError.unavailable(`Vault did not answer within ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs + 100,
      );
    });
    return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
  }
}
