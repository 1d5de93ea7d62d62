import { Injectable } from '@nestjs/common';
import type { TenantScope, Tx } from '@app/persistence';
import type {
  DeliveryAttempt,
  DeliveryStatus,
  EndpointSecretRefs,
  WebhookDelivery,
  WebhookEndpoint,
} from '../domain/webhook-endpoint';
import type { WebhookEventType } from '../domain/webhook-events';

interface EndpointRow {
  id: string;
  url: string;
  description: string;
  events: WebhookEventType[];
  enabled: boolean;
  secret_version: number;
  previous_secret_expires_at: Date | null;
  failure_streak: number;
  disabled_at: Date | null;
  disabled_reason: string | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

interface SecretRow {
  secret_version: number;
  secret_ref: string;
  secret_store_version: number | null;
  previous_secret_ref: string | null;
  previous_secret_store_version: number | null;
  previous_live: boolean;
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: Record<string, unknown>;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
}

const ENDPOINT_COLUMNS = `id, url, description, events, enabled, secret_version, previous_secret_expires_at,
  failure_streak, disabled_at, disabled_reason, created_by, created_at, updated_at`;

const SECRET_COLUMNS = `secret_version, secret_ref, secret_store_version, previous_secret_ref,
  previous_secret_store_version, (previous_secret_expires_at > now()) AS previous_live`;

const DELIVERY_COLUMNS = `id, endpoint_id, event_id, event_type, payload, status, attempts, last_status_code,
  last_error, last_attempt_at, delivered_at, created_at`;

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    secretVersion: row.secret_version,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    failureStreak: row.failure_streak,
    disabledAt: row.disabled_at,
    disabledReason: row.disabled_reason,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toSecrets(row: SecretRow): EndpointSecretRefs {
  const version = (v: number | null) => (v === null ? {} : { version: v });
  return {
    secretVersion: row.secret_version,
    current: { ref: row.secret_ref, ...version(row.secret_store_version) },
    previous:
      row.previous_live && row.previous_secret_ref !== null
        ? { ref: row.previous_secret_ref, ...version(row.previous_secret_store_version) }
        : null,
  };
}

function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    payload: row.payload,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    lastAttemptAt: row.last_attempt_at,
    deliveredAt: row.delivered_at,
    createdAt: row.created_at,
  };
}

export interface NewEndpoint {
  readonly id: string;
  readonly url: string;
  readonly description: string;
  readonly events: readonly WebhookEventType[];
  readonly secret: { readonly ref: string; readonly version?: number };
  readonly createdBy: string | null;
}

export interface EndpointPatch {
  readonly url?: string;
  readonly description?: string;
  readonly events?: readonly WebhookEventType[];
  readonly enabled?: boolean;
}

/** A delivery as the worker sends it: its endpoint's URL and state, and the secrets that sign it. */
export interface DeliveryToSend {
  readonly delivery: WebhookDelivery;
  readonly url: string;
  readonly enabled: boolean;
  readonly secrets: EndpointSecretRefs;
}

/** Endpoints, deliveries and their attempt log. Admin calls run in the tenant; the worker as system. */
@Injectable()
export class WebhookRepository {
  async countEndpoints(tx: Tx, tenantId: string): Promise<number> {
    const { rows } = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_endpoints WHERE tenant_id = $1`,
      [tenantId],
    );
    return rows[0].n;
  }

  async insert(scope: TenantScope, tx: Tx, endpoint: NewEndpoint): Promise<WebhookEndpoint> {
    const { rows } = await tx.query<EndpointRow>(
      `INSERT INTO webhook_endpoints (tenant_id, id, url, description, events, secret_ref, secret_store_version, created_by)
       VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8)
       RETURNING ${ENDPOINT_COLUMNS}`,
      [
        scope.tenantId,
        endpoint.id,
        endpoint.url,
        endpoint.description,
        endpoint.events,
        endpoint.secret.ref,
        endpoint.secret.version ?? null,
        endpoint.createdBy,
      ],
    );
    return toEndpoint(rows[0]);
  }

  async list(scope: TenantScope, tx: Tx): Promise<WebhookEndpoint[]> {
    const { rows } = await tx.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 ORDER BY created_at, id`,
      [scope.tenantId],
    );
    return rows.map(toEndpoint);
  }

  async find(
    scope: TenantScope,
    tx: Tx,
    id: string,
    options: { lock?: boolean } = {},
  ): Promise<WebhookEndpoint | null> {
    const { rows } = await tx.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2${options.lock ? ' FOR UPDATE' : ''}`,
      [scope.tenantId, id],
    );
    return rows[0] ? toEndpoint(rows[0]) : null;
  }

  async secrets(scope: TenantScope, tx: Tx, id: string): Promise<EndpointSecretRefs | null> {
    const { rows } = await tx.query<SecretRow>(
      `SELECT ${SECRET_COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2`,
      [scope.tenantId, id],
    );
    return rows[0] ? toSecrets(rows[0]) : null;
  }

  /** Re-enabling clears the failure streak and the reason it was disabled. */
  async update(
    scope: TenantScope,
    tx: Tx,
    id: string,
    patch: EndpointPatch,
  ): Promise<WebhookEndpoint | null> {
    const { rows } = await tx.query<EndpointRow>(
      `UPDATE webhook_endpoints
          SET url = COALESCE($3, url),
              description = COALESCE($4, description),
              events = COALESCE($5::text[], events),
              enabled = COALESCE($6, enabled),
              failure_streak = CASE WHEN $6 THEN 0 ELSE failure_streak END,
              disabled_at = CASE WHEN $6 THEN NULL WHEN $6 = false AND enabled THEN now() ELSE disabled_at END,
              disabled_reason = CASE WHEN $6 THEN NULL WHEN $6 = false AND enabled THEN 'disabled by an admin'
                                     ELSE disabled_reason END,
              updated_at = now()
        WHERE tenant_id = $1 AND id = $2
       RETURNING ${ENDPOINT_COLUMNS}`,
      [
        scope.tenantId,
        id,
        patch.url ?? null,
        patch.description ?? null,
        patch.events ?? null,
        patch.enabled ?? null,
      ],
    );
    return rows[0] ? toEndpoint(rows[0]) : null;
  }

  /** Deletes the endpoint with its deliveries; answers the secrets it held, for the store to forget. */
  async delete(scope: TenantScope, tx: Tx, id: string): Promise<EndpointSecretRefs | null> {
    const { rows } = await tx.query<SecretRow>(
      `DELETE FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2
       RETURNING secret_version, secret_ref, secret_store_version, previous_secret_ref,
                 previous_secret_store_version, previous_secret_ref IS NOT NULL AS previous_live`,
      [scope.tenantId, id],
    );
    return rows[0] ? toSecrets(rows[0]) : null;
  }

  /** The new secret signs from now on; the one before keeps signing until `overlapSeconds` pass. */
  async rotate(
    scope: TenantScope,
    tx: Tx,
    id: string,
    secret: { version: number; ref: string; storeVersion?: number },
    overlapSeconds: number,
  ): Promise<WebhookEndpoint | null> {
    const { rows } = await tx.query<EndpointRow>(
      `UPDATE webhook_endpoints
          SET previous_secret_ref = secret_ref,
              previous_secret_store_version = secret_store_version,
              previous_secret_expires_at = CASE WHEN $6 > 0 THEN now() + make_interval(secs => $6) END,
              secret_ref = $4, secret_store_version = $5, secret_version = $3, updated_at = now()
        WHERE tenant_id = $1 AND id = $2
       RETURNING ${ENDPOINT_COLUMNS}`,
      [scope.tenantId, id, secret.version, secret.ref, secret.storeVersion ?? null, overlapSeconds],
    );
    return rows[0] ? toEndpoint(rows[0]) : null;
  }

  /** A page of the endpoint's deliveries, newest first; `before` is the last one of the page before. */
  async deliveries(
    scope: TenantScope,
    tx: Tx,
    endpointId: string,
    page: { limit: number; status?: DeliveryStatus; before?: { createdAt: string; id: string } },
  ): Promise<WebhookDelivery[]> {
    const { rows } = await tx.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
        WHERE tenant_id = $1 AND endpoint_id = $2
          AND ($3::text IS NULL OR status = $3)
          AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::uuid))
        ORDER BY created_at DESC, id DESC
        LIMIT $6`,
      [
        scope.tenantId,
        endpointId,
        page.status ?? null,
        page.before?.createdAt ?? null,
        page.before?.id ?? null,
        page.limit,
      ],
    );
    return rows.map(toDelivery);
  }

  async delivery(
    scope: TenantScope,
    tx: Tx,
    endpointId: string,
    id: string,
  ): Promise<WebhookDelivery | null> {
    const { rows } = await tx.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE tenant_id = $1 AND endpoint_id = $2 AND id = $3`,
      [scope.tenantId, endpointId, id],
    );
    return rows[0] ? toDelivery(rows[0]) : null;
  }

  async attempts(scope: TenantScope, tx: Tx, deliveryId: string): Promise<DeliveryAttempt[]> {
    const { rows } = await tx.query<{
      attempt: number;
      attempted_at: Date;
      status_code: number | null;
      duration_ms: number;
      error: string | null;
      manual: boolean;
    }>(
      `SELECT attempt, attempted_at, status_code, duration_ms, error, manual
         FROM webhook_delivery_attempts WHERE tenant_id = $1 AND delivery_id = $2 ORDER BY attempt`,
      [scope.tenantId, deliveryId],
    );
    return rows.map((r) => ({
      attempt: r.attempt,
      attemptedAt: r.attempted_at,
      statusCode: r.status_code,
      durationMs: r.duration_ms,
      error: r.error,
      manual: r.manual,
    }));
  }

  /** The worker's view of a delivery (system transaction). */
  async toSend(tx: Tx, tenantId: string, deliveryId: string): Promise<DeliveryToSend | null> {
    const { rows } = await tx.query<DeliveryRow & SecretRow & { url: string; enabled: boolean }>(
      `SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.payload, d.status, d.attempts, d.last_status_code,
              d.last_error, d.last_attempt_at, d.delivered_at, d.created_at, e.url, e.enabled,
              e.secret_version, e.secret_ref, e.secret_store_version, e.previous_secret_ref,
              e.previous_secret_store_version, (e.previous_secret_expires_at > now()) AS previous_live
         FROM webhook_deliveries d
         JOIN webhook_endpoints e ON e.tenant_id = d.tenant_id AND e.id = d.endpoint_id
        WHERE d.tenant_id = $1 AND d.id = $2`,
      [tenantId, deliveryId],
    );
    const row = rows[0];
    if (!row) return null;
    return { delivery: toDelivery(row), url: row.url, enabled: row.enabled, secrets: toSecrets(row) };
  }

  /** Appends one attempt to the log and to the delivery's totals; answers its number. */
  async recordAttempt(
    tx: Tx,
    tenantId: string,
    deliveryId: string,
    attempt: {
      statusCode: number | null;
      durationMs: number;
      error: string | null;
      manual: boolean;
      delivered: boolean;
    },
  ): Promise<number> {
    const { rows } = await tx.query<{ attempts: number }>(
      `WITH d AS (
         UPDATE webhook_deliveries
            SET attempts = attempts + 1, last_status_code = $3, last_error = $5, last_attempt_at = now(),
                status = CASE WHEN $7 THEN 'delivered' ELSE status END,
                delivered_at = CASE WHEN $7 THEN now() ELSE delivered_at END
          WHERE tenant_id = $1 AND id = $2
         RETURNING tenant_id, id, attempts)
       INSERT INTO webhook_delivery_attempts (tenant_id, delivery_id, attempt, status_code, duration_ms, error, manual)
       SELECT tenant_id, id, attempts, $3, $4, $5, $6 FROM d
       RETURNING attempt AS attempts`,
      [
        tenantId,
        deliveryId,
        attempt.statusCode,
        attempt.durationMs,
        attempt.error,
        attempt.manual,
        attempt.delivered,
      ],
    );
    return rows[0]?.attempts ?? 0;
  }

  async setStatus(
    tx: Tx,
    tenantId: string,
    deliveryId: string,
    status: DeliveryStatus,
    error?: string,
  ): Promise<void> {
    await tx.query(
      `UPDATE webhook_deliveries SET status = $3, last_error = COALESCE($4, last_error) WHERE tenant_id = $1 AND id = $2`,
      [tenantId, deliveryId, status, error ?? null],
    );
  }

  /** A delivered event resets its endpoint's failure streak. */
  async endpointSucceeded(tx: Tx, tenantId: string, endpointId: string): Promise<void> {
    await tx.query(
      `UPDATE webhook_endpoints SET failure_streak = 0 WHERE tenant_id = $1 AND id = $2 AND failure_streak <> 0`,
      [tenantId, endpointId],
    );
  }

  /**
   * A delivery that failed every attempt extends its endpoint's streak; at `disableAfter` the
   * endpoint is disabled. Answers whether this call disabled it.
   */
  async endpointFailed(
    tx: Tx,
    tenantId: string,
    endpointId: string,
    disableAfter: number,
    reason: string,
  ): Promise<boolean> {
    const { rows } = await tx.query<{ disabled: boolean }>(
      `UPDATE webhook_endpoints
          SET failure_streak = failure_streak + 1,
              enabled = enabled AND failure_streak + 1 < $3,
              disabled_at = CASE WHEN enabled AND failure_streak + 1 >= $3 THEN now() ELSE disabled_at END,
              disabled_reason = CASE WHEN enabled AND failure_streak + 1 >= $3 THEN $4 ELSE disabled_reason END
        WHERE tenant_id = $1 AND id = $2
       RETURNING (NOT enabled AND disabled_at = now()) AS disabled`,
      [tenantId, endpointId, disableAfter, reason],
    );
    return rows[0]?.disabled ?? false;
  }

  /** Deletes finished deliveries (and their attempts) older than `days`, a batch at a time. */
  async purgeFinished(tx: Tx, days: number, batch: number): Promise<number> {
    const { rowCount } = await tx.query(
      `DELETE FROM webhook_deliveries
        WHERE (tenant_id, id) IN (SELECT tenant_id, id FROM webhook_deliveries
                                   WHERE status <> 'pending' AND created_at < now() - make_interval(days => $1)
                                   LIMIT $2)`,
      [days, batch],
    );
    return rowCount ?? 0;
  }
}
