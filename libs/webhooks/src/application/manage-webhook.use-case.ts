import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { assertAdmin, AuditWriter, tenantScopeOf, type Actor } from '@app/tenancy';
import { WebhookRepository } from '../adapters/webhook.repository';
import type { UpdateWebhookInput } from '../contracts/webhook.schemas';
import type { WebhookEndpoint } from '../domain/webhook-endpoint';
import { WebhookError } from '../domain/webhook.errors';
import { isUuid, subscribedEvents } from './webhook-events-input';
import { WebhookSecrets } from './webhook-secrets';
import { WebhookTargets } from './webhook-targets';

/** The tenant's endpoints (admin): list and show. Secrets are never shown again. */
@Injectable()
export class ListWebhooksUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookRepository) private readonly endpoints: WebhookRepository,
  ) {}

  list(actor: Actor): Promise<WebhookEndpoint[]> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    return this.tx.inTenant(scope, (tx) => this.endpoints.list(scope, tx));
  }

  async get(actor: Actor, id: string): Promise<WebhookEndpoint> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    const found = isUuid(id)
      ? await this.tx.inTenant(scope, (tx) => this.endpoints.find(scope, tx, id))
      : null;
    if (!found) throw WebhookError.endpointNotFound(id);
    return found;
  }
}

/**
 * Changes an endpoint's URL, events, description, or whether it is enabled (admin). Enabling a
 * disabled endpoint clears its failure streak; deliveries that failed meanwhile stay failed (each
 * can be redelivered). Audited as `webhook.update`.
 */
@Injectable()
export class UpdateWebhookUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookRepository) private readonly endpoints: WebhookRepository,
    @Inject(WebhookTargets) private readonly targets: WebhookTargets,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(actor: Actor, id: string, input: UpdateWebhookInput): Promise<WebhookEndpoint> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    if (!isUuid(id)) throw WebhookError.endpointNotFound(id);
    const events = input.events === undefined ? undefined : subscribedEvents(input.events);
    const url = input.url === undefined ? undefined : await this.targets.accept(input.url);
    const updated = await this.tx.inTenant(scope, async (tx) => {
      const endpoint = await this.endpoints.update(scope, tx, id, {
        url,
        events,
        description: input.description,
        enabled: input.enabled,
      });
      if (!endpoint) return null;
      await this.audit.record(actor, tx, {
        action: 'webhook.update',
        targetType: 'webhook',
        targetId: id,
        details: {
          fields: Object.entries(input)
            .filter(([, value]) => value !== undefined)
            .map(([field]) => field),
          ...(url ? { host: new URL(url).host } : {}),
          ...(events ? { events } : {}),
          ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        },
      });
      return endpoint;
    });
    if (!updated) throw WebhookError.endpointNotFound(id);
    return updated;
  }
}

/** Deletes an endpoint, its deliveries and its secrets (admin). Audited as `webhook.delete`. */
@Injectable()
export class DeleteWebhookUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookRepository) private readonly endpoints: WebhookRepository,
    @Inject(WebhookSecrets) private readonly secrets: WebhookSecrets,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(actor: Actor, id: string): Promise<void> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    if (!isUuid(id)) throw WebhookError.endpointNotFound(id);
    const refs = await this.tx.inTenant(scope, async (tx) => {
      const deleted = await this.endpoints.delete(scope, tx, id);
      if (deleted) {
        await this.audit.record(actor, tx, { action: 'webhook.delete', targetType: 'webhook', targetId: id });
      }
      return deleted;
    });
    if (!refs) throw WebhookError.endpointNotFound(id);
    await this.secrets.forget(scope.tenantId, id, [refs.secretVersion, refs.secretVersion - 1]);
  }
}

/**
 * Replaces an endpoint's signing secret (admin). The new one is returned once and signs from now on;
 * the old one keeps signing beside it (two signatures in `webhook-signature`) for the overlap, so a
 * receiver can switch without rejecting anything. Audited as `webhook.rotate_secret`.
 */
@Injectable()
export class RotateWebhookSecretUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookRepository) private readonly endpoints: WebhookRepository,
    @Inject(WebhookSecrets) private readonly secrets: WebhookSecrets,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(
    actor: Actor,
    id: string,
    overlapSeconds: number,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    const current = isUuid(id)
      ? await this.tx.inTenant(scope, (tx) => this.endpoints.find(scope, tx, id))
      : null;
    if (!current) throw WebhookError.endpointNotFound(id);
    const version = current.secretVersion + 1;
    const { secret, stored } = await this.secrets.create(scope.tenantId, id, version);
    const outcome = await this.tx.inTenant(scope, async (tx) => {
      const locked = await this.endpoints.find(scope, tx, id, { lock: true });
      if (!locked) return 'gone' as const;
      // Another rotation committed between the read and the lock: its secret stands.
      if (locked.secretVersion !== current.secretVersion) return 'raced' as const;
      const rotated = await this.endpoints.rotate(
        scope,
        tx,
        id,
        { version, ref: stored.ref, storeVersion: stored.version },
        overlapSeconds,
      );
      await this.audit.record(actor, tx, {
        action: 'webhook.rotate_secret',
        targetType: 'webhook',
        targetId: id,
        details: { secret_version: version, overlap_seconds: overlapSeconds },
      });
      return rotated ?? ('gone' as const);
    });
    if (outcome === 'gone' || outcome === 'raced') {
      await this.secrets.forget(scope.tenantId, id, [version]);
      throw outcome === 'gone' ? WebhookError.endpointNotFound(id) : WebhookError.rotationConflict(id);
    }
    const endpoint = outcome;
    // The secret before the previous one signs nothing any more.
    await this.secrets.forget(scope.tenantId, id, [version - 2]);
    return { endpoint, secret };
  }
}
