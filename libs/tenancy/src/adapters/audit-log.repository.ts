import { Injectable } from '@nestjs/common';
import { isoTimestamp, type TenantScope, type Tx } from '@app/persistence';
import type { AuditRecord } from '../domain/audit-record';

interface AuditRow {
  id: string;
  created_at: string;
  actor_id: string | null;
  actor_username: string | null;
  key_id: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  request_id: string | null;
  details: Record<string, unknown>;
}

export interface AuditFilter {
  readonly actorId?: string;
  /** Exact action, or with `actionPrefix` every action starting with it. */
  readonly action?: string;
  readonly actionPrefix?: boolean;
  readonly targetId?: string;
  readonly since?: Date;
  /** Resume after this row (created_at as the wire timestamp, id). */
  readonly before?: readonly [string, string];
  readonly limit: number;
}

/** SQL of `audit_log`: reading a tenant's rows newest first, and the retention delete. */
@Injectable()
export class AuditLogRepository {
  async list(scope: TenantScope, tx: Tx, filter: AuditFilter): Promise<AuditRecord[]> {
    const action =
      filter.action === undefined
        ? null
        : filter.actionPrefix
          ? `${likeEscape(filter.action)}%`
          : filter.action;
    const { rows } = await tx.query<AuditRow>(
      `SELECT a.id::text AS id, ${isoTimestamp('a.created_at')} AS created_at, a.actor_id, u.username AS actor_username,
              a.key_id, a.action, a.target_type, a.target_id, a.request_id, a.details
         FROM audit_log a LEFT JOIN users u ON u.id = a.actor_id
        WHERE a.tenant_id = $1
          AND ($2::uuid IS NULL OR a.actor_id = $2::uuid)
          AND ($3::text IS NULL OR (CASE WHEN $4 THEN a.action LIKE $3::text ELSE a.action = $3::text END))
          AND ($5::text IS NULL OR a.target_id = $5::text)
          AND ($6::timestamptz IS NULL OR a.created_at >= $6::timestamptz)
          AND ($7::timestamptz IS NULL OR (a.created_at, a.id) < ($7::timestamptz, $8::bigint))
        ORDER BY a.created_at DESC, a.id DESC
        LIMIT $9`,
      [
        scope.tenantId,
        filter.actorId ?? null,
        action,
        filter.actionPrefix === true,
        filter.targetId ?? null,
        filter.since ?? null,
        filter.before?.[0] ?? null,
        filter.before?.[1] ?? null,
        filter.limit,
      ],
    );
    return rows.map(toRecord);
  }

  /** Deletes up to `batch` rows (any tenant) created before `horizon`; returns how many. System only. */
  async purgeBefore(tx: Tx, horizon: Date, batch: number): Promise<number> {
    const result = await tx.query(
      `DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE created_at < $1 LIMIT $2)`,
      [horizon, batch],
    );
    return result.rowCount;
  }
}

function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function toRecord(row: AuditRow): AuditRecord {
  return {
    id: row.id,
    createdAt: row.created_at,
    actorId: row.actor_id,
    actorUsername: row.actor_username,
    keyId: row.key_id,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    requestId: row.request_id,
    details: row.details,
  };
}
