import { z } from 'zod';
import type { DeliveryAttempt, WebhookDelivery, WebhookEndpoint } from '../domain/webhook-endpoint';
import { WEBHOOK_EVENT_TYPES } from '../domain/webhook-events';

const EVENT_HELP = `Event types (${WEBHOOK_EVENT_TYPES.join(', ')}), a family such as "memory.proposal.*" or "memory.*", or "*" for all`;

/** Events as a JSON array or a comma-separated string (the CLI's `--events a,b`). */
const eventsSchema = z
  .union([z.array(z.string()), z.string()], 'must be a list of event types')
  .transform((value) =>
    (Array.isArray(value) ? value : value.split(',')).map((s) => s.trim()).filter(Boolean),
  )
  .pipe(z.array(z.string().max(64)).min(1, 'needs at least one event type').max(32))
  .describe(EVENT_HELP);

const url = z
  .string('must be a string')
  .trim()
  .min(1, 'is required')
  .max(2000, 'must be at most 2000 characters')
  .describe(
    'Where events are POSTed: an http(s) URL reaching a public address (or one WEBHOOK_ALLOWED_NETWORKS allows)',
  );

/** `POST /api/admin/webhooks` and `cli webhooks create`. */
export const createWebhookBody = z.object({
  url,
  events: eventsSchema,
  description: z.string('must be a string').trim().max(500).default(''),
});
export type CreateWebhookInput = z.output<typeof createWebhookBody>;

/** `PATCH /api/admin/webhooks/:id`: any of the fields; `enabled: true` re-enables a disabled endpoint. */
export const updateWebhookBody = z
  .object({
    url: url.optional(),
    events: eventsSchema.optional(),
    description: z.string('must be a string').trim().max(500).optional(),
    enabled: z.boolean('must be true or false').optional(),
  })
  .refine((body) => Object.values(body).some((v) => v !== undefined), {
    message: 'Pass at least one of url, events, description or enabled',
  });
export type UpdateWebhookInput = z.output<typeof updateWebhookBody>;

/** `POST /api/admin/webhooks/:id/rotate-secret`. */
export const rotateWebhookSecretBody = z.object({
  overlap_seconds: z
    .number('must be a number of seconds')
    .int()
    .min(0)
    .max(604_800)
    .optional()
    .describe(
      'How long the old secret keeps signing beside the new one (default WEBHOOK_SECRET_OVERLAP_SECONDS)',
    ),
});

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const;

/** `GET /api/admin/webhooks/:id/deliveries?status=&limit=&cursor=`. */
export const listDeliveriesQuery = z.object({
  status: z.enum(DELIVERY_STATUSES, `must be one of ${DELIVERY_STATUSES.join(', ')}`).optional(),
  limit: z.coerce.number('must be a number').int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional().describe('next_cursor of the page before'),
});
export type ListDeliveriesQuery = z.output<typeof listDeliveriesQuery>;

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export const webhookResponseSchema = z.object({
  id: z.uuid(),
  url: z.string(),
  description: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  enabled: z.boolean(),
  secret_version: z.number().int(),
  previous_secret_expires_at: z.string().nullable().describe('Until then the previous secret signs as well'),
  failure_streak: z.number().int().describe('Deliveries in a row that failed every attempt'),
  disabled_at: z.string().nullable(),
  disabled_reason: z.string().nullable(),
  created_by: z.uuid().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WebhookResponse = z.infer<typeof webhookResponseSchema>;

export function toWebhookResponse(endpoint: WebhookEndpoint): WebhookResponse {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    events: [...endpoint.events],
    enabled: endpoint.enabled,
    secret_version: endpoint.secretVersion,
    previous_secret_expires_at: iso(endpoint.previousSecretExpiresAt),
    failure_streak: endpoint.failureStreak,
    disabled_at: iso(endpoint.disabledAt),
    disabled_reason: endpoint.disabledReason,
    created_by: endpoint.createdBy,
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
  };
}

export const webhookWithSecretResponseSchema = webhookResponseSchema.extend({
  secret: z
    .string()
    .describe(
      'The signing secret (whsec_…), shown in this response only: verify `webhook-signature` with it',
    ),
});

export const webhooksResponseSchema = z.object({ webhooks: z.array(webhookResponseSchema) });

/** `GET /api/admin/webhooks/events`: every event type an endpoint can subscribe to. */
export const webhookEventTypesResponseSchema = z.object({
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
});

export const deliveryResponseSchema = z.object({
  id: z.uuid(),
  endpoint_id: z.uuid(),
  event_id: z.string().describe('The webhook-id header: the same on every attempt of this event'),
  event_type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  delivered_at: z.string().nullable(),
  created_at: z.string(),
  payload: z
    .record(z.string(), z.unknown())
    .describe('The body sent: ids and metadata, never memory content'),
});
export type DeliveryResponse = z.infer<typeof deliveryResponseSchema>;

export function toDeliveryResponse(delivery: WebhookDelivery): DeliveryResponse {
  return {
    id: delivery.id,
    endpoint_id: delivery.endpointId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    last_attempt_at: iso(delivery.lastAttemptAt),
    delivered_at: iso(delivery.deliveredAt),
    created_at: delivery.createdAt.toISOString(),
    payload: delivery.payload,
  };
}

export const deliveriesPageResponseSchema = z.object({
  deliveries: z.array(deliveryResponseSchema),
  next_cursor: z.string().nullable(),
});

export const attemptResponseSchema = z.object({
  attempt: z.number().int(),
  attempted_at: z.string(),
  status_code: z.number().int().nullable(),
  duration_ms: z.number().int(),
  error: z.string().nullable(),
  manual: z.boolean().describe('Sent by a redeliver'),
});

export const deliveryDetailResponseSchema = deliveryResponseSchema.extend({
  attempt_log: z.array(attemptResponseSchema),
});

export function toAttemptResponse(attempt: DeliveryAttempt): z.infer<typeof attemptResponseSchema> {
  return {
    attempt: attempt.attempt,
    attempted_at: attempt.attemptedAt.toISOString(),
    status_code: attempt.statusCode,
    duration_ms: attempt.durationMs,
    error: attempt.error,
    manual: attempt.manual,
  };
}

/**
 * The body every delivery POSTs (Standard Webhooks): `type`, `timestamp` and `data`. `data` names
 * the memory, tag or session the event is about and who caused it; content is never included —
 * read the memory through the API with a key that may see it.
 */
export const webhookEventPayloadSchema = z.object({
  type: z.enum(WEBHOOK_EVENT_TYPES),
  timestamp: z.string().describe('When the change committed (ISO-8601, UTC)'),
  data: z.object({
    memory_id: z.number().int().optional(),
    session_id: z.uuid().optional(),
    tag: z.string().optional().describe('memory.shared / memory.unshared of a tag share'),
    actor: z
      .object({ user_id: z.uuid().optional(), key_id: z.uuid().optional(), via: z.string().optional() })
      .optional()
      .describe('Who made the change (absent for the service’s own jobs)'),
    change: z.enum(['update', 'verify', 'version_restore']).optional(),
    fields: z.array(z.string()).optional().describe('memory.updated: the fields that changed'),
    version: z.number().int().optional(),
    restored_version: z.number().int().optional(),
    purged: z.boolean().optional().describe('memory.deleted: removed for good rather than soft-deleted'),
    bulk: z.boolean().optional().describe('memory.deleted: one of a bulk delete'),
    shared_with: z.string().optional(),
    unshared_from: z.string().optional(),
    permission: z.enum(['read', 'write']).optional(),
    supersedes: z.number().int().nullable().optional().describe('memory.proposal.*: the memory it corrects'),
    status: z.string().optional().describe('session.ended: ended or abandoned'),
    repo: z.string().optional().describe('memory.stale: the repository of the changed anchor'),
    path: z.string().optional(),
    commit: z.string().optional(),
  }),
});
