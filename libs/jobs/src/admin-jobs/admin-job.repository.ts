import { Injectable } from '@nestjs/common';
import { isoTimestamp, type TenantScope, type Tx } from '@app/persistence';
import type { AdminJob, AdminJobProgress, AdminJobStatus } from './admin-job';

const COLUMNS = `id, tenant_id, kind, status, params, progress, checkpoint, error, created_by,
  ${isoTimestamp('created_at')} AS created_at, ${isoTimestamp('started_at')} AS started_at, ${isoTimestamp('finished_at')} AS finished_at`;

interface JobRow {
  id: string;
  tenant_id: string;
  kind: string;
  status: AdminJobStatus;
  params: Record<string, unknown>;
  progress: { total?: number | null; done?: number; failed?: number } & Record<string, unknown>;
  checkpoint: unknown;
  error: string | null;
  created_by: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

const toJob = (row: JobRow): AdminJob => ({
  id: row.id,
  tenantId: row.tenant_id,
  kind: row.kind,
  status: row.status,
  params: row.params,
  progress: {
    total: row.progress.total ?? null,
    done: row.progress.done ?? 0,
    failed: row.progress.failed ?? 0,
    counters: countersOf(row.progress),
  },
  checkpoint: row.checkpoint,
  error: row.error,
  createdBy: row.created_by,
  createdAt: row.created_at,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
});

const BASE_PROGRESS_KEYS = new Set(['total', 'done', 'failed']);

function countersOf(progress: Record<string, unknown>): Record<string, number> | undefined {
  const entries = Object.entries(progress).filter(
    (e): e is [string, number] => !BASE_PROGRESS_KEYS.has(e[0]) && typeof e[1] === 'number',
  );
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/**
 * SQL for the `jobs` table. Creating and reading are tenant-scoped (RLS checks the tenant too);
 * the run-side methods take a job the worker already holds by id, in a system transaction or in
 * the job's own tenant.
 */
@Injectable()
export class AdminJobRepository {
  async insert(
    scope: TenantScope,
    tx: Tx,
    job: { kind: string; params: Record<string, unknown>; createdBy: string | null },
  ): Promise<AdminJob> {
    const { rows } = await tx.query<JobRow>(
      `INSERT INTO jobs (tenant_id, kind, params, created_by) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
      [scope.tenantId, job.kind, JSON.stringify(job.params), job.createdBy],
    );
    return toJob(rows[0]);
  }

  async find(scope: TenantScope, tx: Tx, id: string): Promise<AdminJob | null> {
    const { rows } = await tx.query<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE id = $1 AND tenant_id = $2`, [
      id,
      scope.tenantId,
    ]);
    return rows[0] ? toJob(rows[0]) : null;
  }

  async findMany(scope: TenantScope, tx: Tx, ids: readonly string[]): Promise<AdminJob[]> {
    if (ids.length === 0) return [];
    const { rows } = await tx.query<JobRow>(
      `SELECT ${COLUMNS} FROM jobs WHERE id = ANY($1::uuid[]) AND tenant_id = $2`,
      [[...ids], scope.tenantId],
    );
    return rows.map(toJob);
  }

  /** A failed job queued again (an admin's retry): it resumes from its checkpoint. */
  async reopen(scope: TenantScope, tx: Tx, id: string): Promise<void> {
    await tx.query(
      `UPDATE jobs SET status = 'queued', error = NULL, finished_at = NULL
        WHERE id = $1 AND tenant_id = $2 AND status = 'failed'`,
      [id, scope.tenantId],
    );
  }

  /** Unfinished jobs of a kind in any tenant visible to the transaction, oldest first. */
  async findOpen(tx: Tx, kind: string): Promise<AdminJob[]> {
    const { rows } = await tx.query<JobRow>(
      `SELECT ${COLUMNS} FROM jobs WHERE kind = $1 AND status IN ('queued', 'running') ORDER BY created_at`,
      [kind],
    );
    return rows.map(toJob);
  }

  /** Locks the job row until commit: runs of the same job (a re-delivery) serialise here. */
  async lock(tx: Tx, id: string): Promise<AdminJob | null> {
    const { rows } = await tx.query<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE id = $1 FOR UPDATE`, [id]);
    return rows[0] ? toJob(rows[0]) : null;
  }

  /** Marks the job running; the first run also records the start time and the item count. */
  async markRunning(tx: Tx, id: string, total: number | null): Promise<void> {
    await tx.query(
      `UPDATE jobs
          SET status = 'running', started_at = coalesce(started_at, now()), error = NULL,
              progress = CASE WHEN progress->'total' IS NULL OR progress->'total' = 'null'::jsonb
                              THEN jsonb_set(progress, '{total}', to_jsonb($2::bigint)) ELSE progress END
        WHERE id = $1`,
      [id, total],
    );
  }

  async saveProgress(tx: Tx, id: string, progress: AdminJobProgress, checkpoint: unknown): Promise<void> {
    const { counters, ...base } = progress;
    await tx.query(`UPDATE jobs SET progress = $2, checkpoint = $3 WHERE id = $1`, [
      id,
      JSON.stringify({ ...counters, ...base }),
      JSON.stringify(checkpoint),
    ]);
  }

  async finish(
    tx: Tx,
    id: string,
    outcome: { status: 'succeeded' | 'failed'; error: string | null },
  ): Promise<void> {
    await tx.query(`UPDATE jobs SET status = $2, error = left($3, 2000), finished_at = now() WHERE id = $1`, [
      id,
      outcome.status,
      outcome.error,
    ]);
  }
}
