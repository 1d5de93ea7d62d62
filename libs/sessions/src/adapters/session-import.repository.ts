import { Injectable } from '@nestjs/common';
import { type TenantScope, type Tx } from '@app/persistence';
import type { EventKind } from '../domain/session';

/** An imported event ready to store: screened, capped, with its time and its transcript key. */
export interface ImportedEventRow {
  readonly kind: EventKind;
  /** Carries `transcript_ref`, the line's deterministic key. */
  readonly payload: Record<string, unknown>;
  readonly createdAt: string;
  readonly ref: string;
}

/**
 * SQL of transcript imports: events keyed by their transcript line, and the follow-up job's
 * batched processing. Everything here touches the caller's own session only.
 */
@Injectable()
export class SessionImportRepository {
  /**
   * Locks the caller's own session row until commit, so batches of two imports of one transcript
   * take turns and each sees what the other committed. False when the session is not the caller's.
   */
  async lockOwnSession(scope: TenantScope, tx: Tx, sessionId: string): Promise<boolean> {
    const { rows } = await tx.query(
      `SELECT 1 FROM sessions WHERE id = $3 AND tenant_id = $1 AND user_id = $2 FOR UPDATE`,
      [scope.tenantId, scope.userId, sessionId],
    );
    return rows.length > 0;
  }

  /**
   * One multi-row INSERT of the events whose transcript key the session does not hold yet; answers
   * how many went in. Each event's key is probed among the session's events of the same time (the
   * LATERAL LIMIT 1 keeps it a per-event index lookup; an anti join planned on stale statistics
   * compared every new event with every stored one), so a batch costs the same however long the
   * session already is. (Once session events have a
   * client id with a unique index per session, the key belongs there and this becomes ON CONFLICT
   * DO NOTHING.)
   */
  async insertNew(
    scope: TenantScope,
    tx: Tx,
    sessionId: string,
    events: readonly ImportedEventRow[],
  ): Promise<number> {
    const { rows } = await tx.query<{ n: number }>(
      `WITH ins AS (
         INSERT INTO session_events (tenant_id, session_id, user_id, kind, payload, created_at)
         SELECT $1, $3, $2, e.kind, e.payload, e.at
           FROM unnest($4::text[], $5::jsonb[], $6::timestamptz[], $7::text[])
                WITH ORDINALITY AS e(kind, payload, at, ref, n)
           LEFT JOIN LATERAL (
                  SELECT 1 AS found FROM session_events x
                   WHERE x.session_id = $3 AND x.created_at = e.at
                     AND x.payload->>'transcript_ref' = e.ref
                   LIMIT 1) stored ON true
          WHERE stored.found IS NULL
          ORDER BY e.n
         RETURNING 1)
       SELECT count(*)::int AS n FROM ins`,
      [
        scope.tenantId,
        scope.userId,
        sessionId,
        events.map((e) => e.kind),
        events.map((e) => JSON.stringify(e.payload)),
        events.map((e) => e.createdAt),
        events.map((e) => e.ref),
      ],
    );
    return rows[0]?.n ?? 0;
  }

  async countUnprocessed(scope: TenantScope, tx: Tx, sessionId: string): Promise<number> {
    const { rows } = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM session_events
        WHERE session_id = $3 AND tenant_id = $1 AND user_id = $2 AND processed_at IS NULL`,
      [scope.tenantId, scope.userId, sessionId],
    );
    return rows[0]?.n ?? 0;
  }

  /** Marks up to `limit` unprocessed events of the caller's session processed, oldest first. */
  async markProcessedBatch(scope: TenantScope, tx: Tx, sessionId: string, limit: number): Promise<number> {
    const { rowCount } = await tx.query(
      `UPDATE session_events e SET processed_at = now()
         FROM (SELECT id FROM session_events
                WHERE session_id = $3 AND tenant_id = $1 AND user_id = $2 AND processed_at IS NULL
                ORDER BY created_at, id
                LIMIT $4
                FOR UPDATE SKIP LOCKED) batch
        WHERE e.id = batch.id`,
      [scope.tenantId, scope.userId, sessionId, limit],
    );
    return rowCount;
  }
}
