import { type Tx } from '@app/persistence';
import { JOB_NAMES } from '../job-definitions';

export interface OutboxRow {
  readonly id: string;
  readonly tenantId: string;
  readonly jobName: string;
  readonly payload: unknown;
  readonly requestId: string | null;
  readonly attempts: number;
  /** Creation time in microseconds since the epoch, as text (part of the job id). */
  readonly createdUs: string;
}

export interface OutboxBacklog {
  readonly pending: number;
  /** Age of the oldest undispatched row, 0 when there is none. */
  readonly oldestAgeSeconds: number;
}

/** The relay's SQL. Runs inside system transactions (the relay serves every tenant). */
export class OutboxRepository {
  /**
   * Locks the oldest ready rows. SKIP LOCKED lets several relays work side by side: each row is
   * held by exactly one transaction until it is marked dispatched or the transaction ends.
   * Rows of the `held` jobs are left for a later pass.
   */
  async claimBatch(tx: Tx, limit: number, held: readonly string[] = []): Promise<OutboxRow[]> {
    const columns = `id::text AS id, tenant_id, job_name, payload, request_id, attempts,
              (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_us`;
    // Oldest first by the column (`ORDER BY id` alone would sort the text the statement returns).
    // Holding: each other job's oldest rows by (job_name, id), so the held backlog is never read.
    // Rows of jobs this build does not know wait for a pass that holds nothing.
    const taken = JOB_NAMES.filter((name) => !held.includes(name));
    const { rows } = await tx.query<{
      id: string;
      tenant_id: string;
      job_name: string;
      payload: unknown;
      request_id: string | null;
      attempts: number;
      created_us: string;
    }>(
      held.length === 0
        ? `SELECT ${columns}
             FROM outbox
            WHERE dispatched_at IS NULL AND available_at <= now()
            ORDER BY outbox.id
            LIMIT $1
            FOR UPDATE SKIP LOCKED`
        : `SELECT claimed.* FROM unnest($2::text[]) AS job(name)
             CROSS JOIN LATERAL (
               SELECT ${columns}
                 FROM outbox
                WHERE dispatched_at IS NULL AND job_name = job.name AND available_at <= now()
                ORDER BY outbox.id
                LIMIT $1
                FOR UPDATE SKIP LOCKED) claimed
            ORDER BY claimed.id::bigint
            LIMIT $1`,
      held.length === 0 ? [limit] : [limit, taken],
    );
    return rows.map((r) => ({
      id: r.id,
      tenantId: r.tenant_id,
      jobName: r.job_name,
      payload: r.payload,
      requestId: r.request_id,
      attempts: r.attempts,
      createdUs: r.created_us,
    }));
  }

  /** Marks the rows queued (`last`: the transaction ends with it, see `QueryOptions.last`). */
  async markDispatched(tx: Tx, ids: readonly string[], options: { last?: boolean } = {}): Promise<void> {
    if (ids.length === 0) return;
    await tx.query(
      `UPDATE outbox SET dispatched_at = now(), attempts = attempts + 1 WHERE id = ANY($1::bigint[])`,
      [ids],
      { last: options.last },
    );
  }

  /** Counts a failed attempt; `retryAfterMs` > 0 also keeps the rows out of the next batches for a while. */
  async recordFailure(tx: Tx, ids: readonly string[], error: string, retryAfterMs = 0): Promise<void> {
    if (ids.length === 0) return;
    await tx.query(
      `UPDATE outbox
          SET attempts = attempts + 1,
              last_error = left($2, 2000),
              available_at = now() + make_interval(secs => $3::double precision / 1000)
        WHERE id = ANY($1::bigint[])`,
      [ids, error, retryAfterMs],
    );
  }

  /**
   * Deletes at most `batch` rows dispatched before `horizon`, oldest first (the primary key's order,
   * so each batch stops at the first rows still kept); returns how many went.
   */
  async purgeDispatchedBefore(tx: Tx, horizon: Date, batch: number): Promise<number> {
    const { rowCount } = await tx.query(
      `DELETE FROM outbox WHERE id IN (
         SELECT id FROM outbox WHERE dispatched_at < $1 ORDER BY id LIMIT $2)`,
      [horizon, batch],
    );
    return rowCount;
  }

  async backlog(tx: Tx): Promise<OutboxBacklog> {
    const { rows } = await tx.query<{ pending: string; oldest: number | null }>(
      `SELECT count(*)::text AS pending, extract(epoch FROM now() - min(created_at))::float8 AS oldest
         FROM outbox WHERE dispatched_at IS NULL`,
    );
    return { pending: Number(rows[0]?.pending ?? 0), oldestAgeSeconds: Math.max(0, rows[0]?.oldest ?? 0) };
  }
}
