import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { METRICS_REGISTRY } from '@app/observability';
import { ServerSecretRepository, TransactionRunner } from '@app/persistence';
import { RecalledTextScreen } from './detection/recalled-text-screen';
import { SecretDetector } from './detection/secret-detector';
import { EMBEDDED_KEY_FILE, readOrCreateEmbeddedKey } from './local/embedded-key-file';
import { isRawKey } from './local/encryption-key';
import { MeteredSecretStore } from './metered-secret-store';
import { NoSecretStore } from './no-secret-store';
import { createSecretStore, type ConfiguredSecretStore } from './secret-store.factory';
import { SECRET_STORE } from './secret-store.port';
import { VaultSecretStore } from './vault/vault-secret-store.adapter';

/** Name of the per-installation salt for MEMORY_ENCRYPTION_KEY passphrases in `server_secrets`. */
export const KDF_SALT_SECRET = 'secret_store_kdf_salt';

/**
 * The installation's secret store: a passphrase key is stretched with a salt generated once per
 * installation and kept in the database (every process converges on the first one written).
 */
export async function secretStoreFromConfig(
  config: AppConfig,
  tx: TransactionRunner,
  serverSecrets: ServerSecretRepository,
  metrics?: Registry,
): Promise<ConfiguredSecretStore> {
  const key = config.secrets.encryptionKey ?? embeddedKey(config);
  const needsSalt = !config.secrets.vault.address && key !== undefined && !isRawKey(key);
  const kdfSalt = needsSalt
    ? (await tx.asSystem((t) => serverSecrets.getOrCreate(t, KDF_SALT_SECRET, randomBytes(32)))).toString(
        'hex',
      )
    : undefined;
  const store = createSecretStore({ ...config.secrets, encryptionKey: key }, { kdfSalt });
  return metrics && !(store instanceof NoSecretStore) ? new MeteredSecretStore(store, metrics) : store;
}

/** Embedded mode without Vault or a configured key: a generated key file in DATA_DIR. */
function embeddedKey(config: AppConfig): string | undefined {
  if (config.mode !== 'embedded' || config.secrets.vault.address) return undefined;
  const { key, created } = readOrCreateEmbeddedKey(config.embedded.dataDir);
  if (created) {
    new Logger('Secrets').log(
      `generated ${join(config.embedded.dataDir, EMBEDDED_KEY_FILE)} to encrypt secret memories (back it up with the data directory; set MEMORY_ENCRYPTION_KEY or VAULT_ADDR for a team install)`,
    );
  }
  return key;
}

/** Stops Vault token renewal when the application shuts down. */
@Injectable()
class SecretStoreLifecycle implements OnApplicationShutdown {
  constructor(@Inject(SECRET_STORE) private readonly store: ConfiguredSecretStore) {}

  onApplicationShutdown(): void {
    const store = this.store instanceof MeteredSecretStore ? this.store.inner : this.store;
    if (store instanceof VaultSecretStore) store.close();
  }
}

/**
 * `SECRET_STORE` (Vault, local AES-GCM or none), the `SecretDetector` and the read-time
 * `RecalledTextScreen`, for API and worker.
 */
@Module({
  providers: [
    {
      provide: SECRET_STORE,
      inject: [
        APP_CONFIG,
        TransactionRunner,
        ServerSecretRepository,
        { token: METRICS_REGISTRY, optional: true },
      ],
      useFactory: secretStoreFromConfig,
    },
    { provide: SecretDetector, useFactory: () => new SecretDetector() },
    {
      provide: RecalledTextScreen,
      inject: [SecretDetector],
      useFactory: (detector: SecretDetector) => new RecalledTextScreen(detector),
    },
    SecretStoreLifecycle,
  ],
  exports: [SECRET_STORE, SecretDetector, RecalledTextScreen],
})
export class SecretsModule {}
