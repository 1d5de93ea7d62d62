import { expandEventPatterns, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../domain/webhook-events';
import { WebhookError, WebhookErrorCode } from '../domain/webhook.errors';

/** The event types a subscription names, or a 422 naming what is unknown. */
export function subscribedEvents(patterns: readonly string[]): WebhookEventType[] {
  const { events, unknown } = expandEventPatterns(patterns);
  if (unknown.length > 0) {
    throw new WebhookError(
      WebhookErrorCode.InvalidInput,
      `Unknown event type ${unknown.map((u) => `"${u}"`).join(', ')}: use ${WEBHOOK_EVENT_TYPES.join(', ')}, a family such as "memory.*", or "*"`,
    );
  }
  return events;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id from a path that is not a UUID names nothing: 404, as for an id of another tenant. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
