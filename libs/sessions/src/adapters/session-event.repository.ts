import { Injectable } from '@nestjs/common';
import { isoTimestamp, type TenantScope, type Tx } from '@app/persistence';
import {
  EVENT_KINDS,
  type EventKind,
  type NewSessionEvent,
  type SessionEvent,
  type SessionEventCounts,
} from '../domain/session';
import { isAdmin, readableSessionSql } from './session.repository';

interface EventRow {
  id: string;
  session_id: string;
  kind: EventKind;
  payload: unknown;
  created_at: string;
}

const COLUMNS = `e.id, e.session_id, e.kind, e.payload, ${isoTimestamp('e.created_at')} AS created_at`;

const toEvent = (row: EventRow): SessionEvent => ({
  id: Number(row.id),
  sessionId: row.session_id,
  kind: row.kind,
  payload: row.payload,
  createdAt: row.created_at,
});

/**
 * SQL of `session_events`. Events are read with their session's visibility (`readableSessionSql`:
 * own, admin, or a teammate's when the tenant allows it) and written only into one's own session.
 */
@Injectable()
export class SessionEventRepository {
  /**
   * One multi-row INSERT for the whole batch, into the caller's own session only. An event whose
   * client id the session already has is skipped (ON CONFLICT DO NOTHING), so a resent batch stores
   * nothing twice, also when two resends race. Answers whether the session is the caller's, how
   * many rows went in, and whether this batch must queue the session's processing job: the session
   * row is locked and its `processing_queued` flag set in the same statement, so only the first
   * batch after a finished job queues one (see `finishProcessing`).
   */
  async insertBatch(
    scope: TenantScope,
    tx: Tx,
    sessionId: string,
    events: readonly NewSessionEvent[],
  ): Promise<{ found: boolean; inserted: number; queueJob: boolean }> {
    const { rows } = await tx.query<{ found: boolean; inserted: number; queue_job: boolean }>(
      `WITH own AS (
         SELECT s.id, s.processing_queued AS queued FROM sessions s
          WHERE s.id = $3 AND s.tenant_id = $1 AND s.user_id = $2
            FOR NO KEY UPDATE),
       ins AS (
         INSERT INTO session_events (tenant_id, session_id, user_id, kind, payload, created_at, client_id)
         SELECT $1, $3, $2, e.kind, e.payload, coalesce(e.at, now()), e.client_id
           FROM unnest($4::text[], $5::jsonb[], $6::timestamptz[], $7::text[])
                WITH ORDINALITY AS e(kind, payload, at, client_id, n)
          WHERE EXISTS (SELECT 1 FROM own)
          ORDER BY e.n
         ON CONFLICT (session_id, client_id, tenant_id) DO NOTHING
         RETURNING 1),
       flag AS (
         UPDATE sessions s SET processing_queued = true FROM own
          WHERE s.id = own.id AND NOT own.queued AND EXISTS (SELECT 1 FROM ins)
         RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM own) AS found, (SELECT count(*)::int FROM ins) AS inserted,
              EXISTS (SELECT 1 FROM flag) AS queue_job`,
      [
        scope.tenantId,
        scope.userId,
        sessionId,
        events.map((e) => e.kind),
        events.map((e) => JSON.stringify(e.payload)),
        events.map((e) => e.createdAt ?? null),
        events.map((e) => e.clientId ?? null),
      ],
    );
    return {
      found: rows[0]?.found ?? false,
      inserted: rows[0]?.inserted ?? 0,
      queueJob: rows[0]?.queue_job ?? false,
    };
  }

  /** Events per kind of a session the caller can read. */
  async counts(scope: TenantScope, tx: Tx, sessionId: string): Promise<SessionEventCounts> {
    const { rows } = await tx.query<{ kind: EventKind; n: number; processed: number }>(
      `SELECT e.kind, count(*)::int AS n, count(e.processed_at)::int AS processed
         FROM session_events e
        WHERE e.session_id = $3 AND e.tenant_id = $1 AND ${readableSessionSql('e', '$2', '$4')}
        GROUP BY e.kind`,
      [scope.tenantId, scope.userId, sessionId, isAdmin(scope)],
    );
    const byKind = Object.fromEntries(EVENT_KINDS.map((kind) => [kind, 0])) as Record<EventKind, number>;
    let total = 0;
    let processed = 0;
    for (const row of rows) {
      byKind[row.kind] = row.n;
      total += row.n;
      processed += row.processed;
    }
    return { byKind, total, processed };
  }

  /**
   * Up to `window` events before `around` and `window` from it on, oldest first; without
   * `around`, the newest `window` events.
   */
  async timeline(
    scope: TenantScope,
    tx: Tx,
    query: { sessionId: string; around: string | null; window: number },
  ): Promise<SessionEvent[]> {
    const visible = `e.session_id = $3 AND e.tenant_id = $1 AND ${readableSessionSql('e', '$2', '$4')}`;
    const params = [scope.tenantId, scope.userId, query.sessionId, isAdmin(scope), query.window];
    const sql =
      query.around === null
        ? `SELECT * FROM (
             SELECT ${COLUMNS}, e.created_at AS t FROM session_events e WHERE ${visible}
              ORDER BY e.created_at DESC, e.id DESC LIMIT $5) newest`
        : `(SELECT ${COLUMNS}, e.created_at AS t FROM session_events e WHERE ${visible} AND e.created_at < $6::timestamptz
             ORDER BY e.created_at DESC, e.id DESC LIMIT $5)
           UNION ALL
           (SELECT ${COLUMNS}, e.created_at AS t FROM session_events e WHERE ${visible} AND e.created_at >= $6::timestamptz
             ORDER BY e.created_at, e.id LIMIT $5)`;
    const { rows } = await tx.query<EventRow & { t: Date }>(
      `SELECT id, session_id, kind, payload, created_at FROM (${sql}) events ORDER BY t, id`,
      query.around === null ? params : [...params, query.around],
    );
    return rows.map(toEvent);
  }

  /**
   * The processing job's first statement: takes the session's row lock (waiting for batches still
   * being written) and clears `processing_queued`, so that the events it then marks include every
   * batch that found the flag set, and the next batch queues a new job.
   */
  async finishProcessing(scope: TenantScope, tx: Tx, sessionId: string): Promise<void> {
    await tx.query(
      `UPDATE sessions SET processing_queued = false WHERE id = $3 AND tenant_id = $1 AND user_id = $2`,
      [scope.tenantId, scope.userId, sessionId],
    );
  }

  /** Marks the caller's unprocessed events of a session as processed; answers how many. */
  async markProcessed(scope: TenantScope, tx: Tx, sessionId: string): Promise<number> {
    const { rowCount } = await tx.query(
      `UPDATE session_events SET processed_at = now()
        WHERE session_id = $3 AND tenant_id = $1 AND user_id = $2 AND processed_at IS NULL`,
      [scope.tenantId, scope.userId, sessionId],
    );
    return rowCount;
  }

  /** The caller's events of a session the extraction job has not handled yet, oldest first. */
  async unextracted(scope: TenantScope, tx: Tx, sessionId: string, limit: number): Promise<SessionEvent[]> {
    const { rows } = await tx.query<EventRow>(
      `SELECT ${COLUMNS} FROM session_events e
        WHERE e.session_id = $3 AND e.tenant_id = $1 AND e.user_id = $2 AND e.extracted_at IS NULL
        ORDER BY e.id
        LIMIT $4`,
      [scope.tenantId, scope.userId, sessionId, limit],
    );
    return rows.map(toEvent);
  }

  /**
   * The files the session's tool calls read or changed, as its hooks named them (`payload.file`:
   * repo-relative path and blob id, never contents): each path once, with the blob id it had last.
   */
  async touchedFiles(
    scope: TenantScope,
    tx: Tx,
    sessionId: string,
  ): Promise<Array<{ path: string; hash: string | null }>> {
    const { rows } = await tx.query<{ path: string; hash: string | null }>(
      `SELECT DISTINCT ON (e.payload->'file'->>'path') e.payload->'file'->>'path' AS path,
              e.payload->'file'->>'hash' AS hash
         FROM session_events e
        WHERE e.session_id = $3 AND e.tenant_id = $1 AND e.user_id = $2 AND e.kind = 'tool_call'
          AND jsonb_typeof(e.payload->'file'->'path') = 'string'
        ORDER BY e.payload->'file'->>'path', e.id DESC
        LIMIT 500`,
      [scope.tenantId, scope.userId, sessionId],
    );
    return rows;
  }

  /** Marks events as extracted, so a later run skips them. */
  async markExtracted(scope: TenantScope, tx: Tx, sessionId: string, ids: readonly number[]): Promise<void> {
    await tx.query(
      `UPDATE session_events SET extracted_at = now()
        WHERE session_id = $3 AND tenant_id = $1 AND user_id = $2 AND id = ANY($4::bigint[]) AND extracted_at IS NULL`,
      [scope.tenantId, scope.userId, sessionId, ids],
    );
  }
}
