import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  SECRET_STORE,
  SecretStoreError,
  SecretStoreErrorCode,
  type ConfiguredSecretStore,
  type SecretRef,
  type StoredSecret,
} from '@app/secrets';
import type { EndpointSecretRefs } from '../domain/webhook-endpoint';
import { generateSigningSecret } from '../domain/signing-secret';

const NO_STORE =
  'Webhook signing secrets are kept in the secret store, and none is configured: set VAULT_ADDR (with its credentials) or MEMORY_ENCRYPTION_KEY';

function refOf(tenantId: string, endpointId: string, version: number): SecretRef {
  return { tenantId, userId: endpointId, memoryId: version, kind: 'webhook' };
}

/** Endpoints' signing secrets in the secret store (Vault or local encryption), one entry per version. */
@Injectable()
export class WebhookSecrets {
  private readonly logger = new Logger('Webhooks');

  constructor(@Inject(SECRET_STORE) private readonly store: ConfiguredSecretStore) {}

  /** A new secret for version `version` of the endpoint's secret, written to the store. */
  async create(
    tenantId: string,
    endpointId: string,
    version: number,
  ): Promise<{ secret: string; stored: StoredSecret }> {
    if (this.store.kind === 'none')
      throw new SecretStoreError(SecretStoreErrorCode.Unavailable, NO_STORE, 60);
    const secret = generateSigningSecret();
    const stored = await this.store.put(refOf(tenantId, endpointId, version), secret, { overwrite: true });
    return { secret, stored };
  }

  /** The secrets that sign now: the current one, then the previous one while its overlap lasts. */
  async signing(tenantId: string, endpointId: string, refs: EndpointSecretRefs): Promise<string[]> {
    const secrets = [await this.store.get(refOf(tenantId, endpointId, refs.secretVersion), refs.current)];
    if (refs.previous) {
      secrets.push(await this.store.get(refOf(tenantId, endpointId, refs.secretVersion - 1), refs.previous));
    }
    return secrets;
  }

  /** Deletes versions of the endpoint's secret; a failure is logged (the entry is unreachable anyway). */
  async forget(tenantId: string, endpointId: string, versions: readonly number[]): Promise<void> {
    for (const version of versions.filter((v) => v >= 1)) {
      try {
        await this.store.delete(refOf(tenantId, endpointId, version));
      } catch (error) {
        this.logger.warn(
          `could not delete version ${version} of webhook ${endpointId}'s secret: ${(error as Error).message}`,
        );
      }
    }
  }
}
