import type { WebhookEventType } from './webhook-events';

/** A registered receiver of the tenant's events. Its signing secret lives in the secret store. */
export interface WebhookEndpoint {
  readonly id: string;
  readonly url: string;
  readonly description: string;
  readonly events: readonly WebhookEventType[];
  readonly enabled: boolean;
  /** Which secret signs now (1 at registration, +1 per rotation). */
  readonly secretVersion: number;
  /** Until then the previous secret signs as well (a rotation's overlap); null when none. */
  readonly previousSecretExpiresAt: Date | null;
  /** Deliveries in a row that failed every attempt (reset by a success or re-enabling). */
  readonly failureStreak: number;
  readonly disabledAt: Date | null;
  readonly disabledReason: string | null;
  readonly createdBy: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** Where an endpoint's signing secrets are (the secret store's references). */
export interface EndpointSecretRefs {
  readonly secretVersion: number;
  readonly current: { readonly ref: string; readonly version?: number };
  /** The secret before the last rotation, while it still signs. */
  readonly previous: { readonly ref: string; readonly version?: number } | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

/** One event for one endpoint, with the outcome of its attempts so far. */
export interface WebhookDelivery {
  readonly id: string;
  readonly endpointId: string;
  /** The `webhook-id` header: the same for every attempt and every endpoint of one event. */
  readonly eventId: string;
  readonly eventType: string;
  readonly payload: Record<string, unknown>;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly lastAttemptAt: Date | null;
  readonly deliveredAt: Date | null;
  readonly createdAt: Date;
}

export interface DeliveryAttempt {
  readonly attempt: number;
  readonly attemptedAt: Date;
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly manual: boolean;
}
