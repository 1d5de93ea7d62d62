import { Inject, Injectable, Logger } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { HandlesJob, isFinalAttempt, type JobContext, type JobPayload } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { WebhookSender, type SendResult } from '../adapters/webhook-sender';
import { WebhookRepository, type DeliveryToSend } from '../adapters/webhook.repository';
import { WebhookSecrets } from './webhook-secrets';

/** The outcome of one run of a delivery job. */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed' | 'skipped';

/** An attempt the receiver did not accept: the job is retried with backoff. */
export class WebhookAttemptFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookAttemptFailed';
  }
}

/**
 * Signs `body` per Standard Webhooks: HMAC-SHA256 over `<id>.<timestamp>.<body>` with each secret,
 * `v1,<base64>` signatures separated by spaces (the current secret first, then the one a rotation
 * keeps for its overlap).
 */
export function signatureHeader(secrets: readonly string[], id: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ');
}

/**
 * `webhooks.deliver`: POSTs one event to one endpoint, as the system. The body is the payload the
 * event recorded; the headers are `webhook-id` (the event's id, the same on every attempt),
 * `webhook-timestamp` (this attempt, in seconds) and `webhook-signature`. Every attempt is logged
 * with its status code and duration, never the response body. A 2xx delivers it and clears the
 * endpoint's failure streak; anything else is retried with exponential backoff (WEBHOOK_MAX_ATTEMPTS,
 * WEBHOOK_RETRY_BASE_MS); after the last attempt the delivery fails, and WEBHOOK_DISABLE_AFTER_FAILURES
 * failed deliveries in a row disable the endpoint. A delivery of a disabled endpoint is skipped.
 */
@Injectable()
export class DeliverWebhookUseCase {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookRepository) private readonly repository: WebhookRepository,
    @Inject(WebhookSecrets) private readonly secrets: WebhookSecrets,
    @Inject(WebhookSender) private readonly sender: WebhookSender,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @HandlesJob('webhooks.deliver')
  async onJob(payload: JobPayload<'webhooks.deliver'>, context: JobContext): Promise<DeliveryOutcome> {
    const outcome = await this.execute(payload, context);
    if (outcome === 'retrying') {
      throw new WebhookAttemptFailed(
        `delivery ${payload.deliveryId}: attempt ${context.attempt} was not accepted`,
      );
    }
    return outcome;
  }

  async execute(
    payload: JobPayload<'webhooks.deliver'>,
    context: Pick<JobContext, 'attempt' | 'maxAttempts'>,
  ): Promise<DeliveryOutcome> {
    const { tenantId, deliveryId } = payload;
    const manual = payload.manual === true;
    const target = await this.tx.asSystem((tx) => this.repository.toSend(tx, tenantId, deliveryId));
    // Deleted with its endpoint, or purged: nothing to send.
    if (!target) return 'skipped';
    const { delivery } = target;
    if (!manual && delivery.status !== 'pending') return 'skipped';
    if (!target.enabled) {
      await this.tx.asSystem((tx) =>
        this.repository.setStatus(tx, tenantId, deliveryId, 'skipped', 'the endpoint is disabled'),
      );
      return 'skipped';
    }
    const result = await this.send(tenantId, target);
    const delivered = result.error === null;
    // An attempt that could not be signed (the secret store unavailable) counts like one the receiver refused.
    const final = isFinalAttempt(context);
    return this.tx.asSystem(async (tx) => {
      const attempt = await this.repository.recordAttempt(tx, tenantId, deliveryId, {
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        error: result.error,
        manual,
        delivered,
      });
      if (delivered) {
        await this.repository.endpointSucceeded(tx, tenantId, delivery.endpointId);
        return 'delivered';
      }
      if (!final) return 'retrying';
      await this.repository.setStatus(tx, tenantId, deliveryId, 'failed');
      const threshold = this.config.webhooks.disableAfterFailures;
      const disabled = await this.repository.endpointFailed(
        tx,
        tenantId,
        delivery.endpointId,
        threshold,
        `${threshold} deliveries in a row failed every attempt (the last: ${result.error})`,
      );
      this.logger.warn(
        `webhook delivery ${deliveryId} (${delivery.eventType}) failed after ${attempt} attempts: ${result.error}` +
          (disabled ? `; endpoint ${delivery.endpointId} disabled` : ''),
      );
      return 'failed';
    });
  }

  /** One signed POST; a secret that cannot be read is reported as this attempt's error. */
  private async send(tenantId: string, target: DeliveryToSend): Promise<SendResult> {
    const { delivery } = target;
    let secrets: string[];
    try {
      secrets = await this.secrets.signing(tenantId, delivery.endpointId, target.secrets);
    } catch (error) {
      return {
        statusCode: null,
        durationMs: 0,
        error: `the signing secret could not be read: ${(error as Error).message}`,
      };
    }
    const body = JSON.stringify(delivery.payload);
    const now = new Date();
    return this.sender.send(
      target.url,
      {
        'content-type': 'application/json',
        'user-agent': 'memory-service-webhooks/1',
        'webhook-id': delivery.eventId,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signatureHeader(secrets, delivery.eventId, now, body),
      },
      body,
    );
  }
}
