import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { actingUserId, assertAdmin, AuditWriter, tenantScopeOf, type Actor } from '@app/tenancy';
import { WebhookRepository } from '../adapters/webhook.repository';
import type { CreateWebhookInput } from '../contracts/webhook.schemas';
import type { WebhookEndpoint } from '../domain/webhook-endpoint';
import { WebhookError, WebhookErrorCode } from '../domain/webhook.errors';
import { subscribedEvents } from './webhook-events-input';
import { WebhookSecrets } from './webhook-secrets';
import { WebhookTargets } from './webhook-targets';

/** Most endpoints one tenant may register. */
export const MAX_WEBHOOK_ENDPOINTS = 50;

/**
 * Registers an endpoint for the tenant's events (admin). Its signing secret is generated here,
 * written to the secret store, and returned once. Audited as `webhook.create` (host and events; the
 * URL itself may hold a token of the receiver's).
 */
@Injectable()
export class RegisterWebhookUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookRepository) private readonly endpoints: WebhookRepository,
    @Inject(WebhookSecrets) private readonly secrets: WebhookSecrets,
    @Inject(WebhookTargets) private readonly targets: WebhookTargets,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(
    actor: Actor,
    input: CreateWebhookInput,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    const events = subscribedEvents(input.events);
    const url = await this.targets.accept(input.url);
    const id = randomUUID();
    const { secret, stored } = await this.secrets.create(scope.tenantId, id, 1);
    try {
      const endpoint = await this.tx.inTenant(scope, async (tx) => {
        if ((await this.endpoints.countEndpoints(tx, scope.tenantId)) >= MAX_WEBHOOK_ENDPOINTS) {
          throw new WebhookError(
            WebhookErrorCode.InvalidInput,
            `A tenant has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints: delete one first`,
          );
        }
        const created = await this.endpoints.insert(scope, tx, {
          id,
          url,
          description: input.description,
          events,
          secret: stored,
          createdBy: actingUserId(actor),
        });
        await this.audit.record(actor, tx, {
          action: 'webhook.create',
          targetType: 'webhook',
          targetId: id,
          details: { host: new URL(url).host, events },
        });
        return created;
      });
      return { endpoint, secret };
    } catch (error) {
      await this.secrets.forget(scope.tenantId, id, [1]);
      throw error;
    }
  }
}
