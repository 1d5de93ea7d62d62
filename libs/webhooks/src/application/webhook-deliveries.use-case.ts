import { Inject, Injectable } from '@nestjs/common';
import { OutboxWriter } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { assertAdmin, AuditWriter, tenantScopeOf, type Actor } from '@app/tenancy';
import { WebhookRepository } from '../adapters/webhook.repository';
import type { ListDeliveriesQuery } from '../contracts/webhook.schemas';
import type { DeliveryAttempt, WebhookDelivery } from '../domain/webhook-endpoint';
import { WebhookError, WebhookErrorCode } from '../domain/webhook.errors';
import { isUuid } from './webhook-events-input';

function encodeCursor(delivery: WebhookDelivery): string {
  return Buffer.from(`${delivery.createdAt.toISOString()}|${delivery.id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  if (!id || !isUuid(id) || Number.isNaN(Date.parse(createdAt))) {
    throw new WebhookError(WebhookErrorCode.InvalidInput, 'cursor is not a next_cursor this list gave');
  }
  return { createdAt, id };
}

/** An endpoint's delivery log (admin): deliveries newest first, and one with every attempt. */
@Injectable()
export class ListWebhookDeliveriesUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookRepository) private readonly repository: WebhookRepository,
  ) {}

  async list(
    actor: Actor,
    endpointId: string,
    query: ListDeliveriesQuery,
  ): Promise<{ deliveries: WebhookDelivery[]; nextCursor: string | null }> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const page = isUuid(endpointId)
      ? await this.tx.inTenant(scope, async (tx) =>
          (await this.repository.find(scope, tx, endpointId))
            ? this.repository.deliveries(scope, tx, endpointId, {
                limit: query.limit + 1,
                status: query.status,
                before,
              })
            : null,
        )
      : null;
    if (!page) throw WebhookError.endpointNotFound(endpointId);
    const deliveries = page.slice(0, query.limit);
    return {
      deliveries,
      nextCursor: page.length > query.limit ? encodeCursor(deliveries[deliveries.length - 1]) : null,
    };
  }

  async get(
    actor: Actor,
    endpointId: string,
    deliveryId: string,
  ): Promise<{ delivery: WebhookDelivery; attempts: DeliveryAttempt[] }> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    if (!isUuid(endpointId)) throw WebhookError.endpointNotFound(endpointId);
    const found = isUuid(deliveryId)
      ? await this.tx.inTenant(scope, async (tx) => {
          const delivery = await this.repository.delivery(scope, tx, endpointId, deliveryId);
          return delivery
            ? { delivery, attempts: await this.repository.attempts(scope, tx, deliveryId) }
            : null;
        })
      : null;
    if (!found) throw WebhookError.deliveryNotFound(deliveryId);
    return found;
  }
}

/**
 * Sends a delivery again (admin), whatever became of it: the same event id and payload, a fresh
 * round of attempts with backoff, each logged as manual. Refused (409) while the endpoint is
 * disabled. Audited as `webhook.redeliver`.
 */
@Injectable()
export class RedeliverWebhookUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookRepository) private readonly repository: WebhookRepository,
    @Inject(OutboxWriter) private readonly outbox: OutboxWriter,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(actor: Actor, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    if (!isUuid(endpointId)) throw WebhookError.endpointNotFound(endpointId);
    if (!isUuid(deliveryId)) throw WebhookError.deliveryNotFound(deliveryId);
    return this.tx.inTenant(scope, async (tx) => {
      const endpoint = await this.repository.find(scope, tx, endpointId);
      if (!endpoint) throw WebhookError.endpointNotFound(endpointId);
      const delivery = await this.repository.delivery(scope, tx, endpointId, deliveryId);
      if (!delivery) throw WebhookError.deliveryNotFound(deliveryId);
      if (!endpoint.enabled) {
        throw new WebhookError(
          WebhookErrorCode.EndpointDisabled,
          `Webhook ${endpointId} is disabled (${endpoint.disabledReason ?? 'by an admin'}): enable it, then redeliver`,
        );
      }
      await this.repository.setStatus(tx, scope.tenantId, deliveryId, 'pending');
      await this.outbox.enqueue(scope, tx, {
        name: 'webhooks.deliver',
        payload: { tenantId: scope.tenantId, deliveryId, manual: true, requestId: actor.requestId },
        requestId: actor.requestId,
      });
      await this.audit.record(actor, tx, {
        action: 'webhook.redeliver',
        targetType: 'webhook',
        targetId: endpointId,
        details: { delivery_id: deliveryId, event_id: delivery.eventId },
      });
      return { ...delivery, status: 'pending' as const };
    });
  }
}
