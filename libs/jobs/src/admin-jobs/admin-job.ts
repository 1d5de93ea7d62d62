import { z } from 'zod';

/** A long-running admin job (reindex, secret migration) as the `jobs` table records it. */
export type AdminJobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface AdminJobProgress {
  /** Items to process, once counted (null before the job has started). */
  readonly total: number | null;
  readonly done: number;
  readonly failed: number;
  /** Further counters a job kind reports (e.g. the secret migration's scanned/found/migrated). */
  readonly counters?: Readonly<Record<string, number>>;
}

export interface AdminJob {
  readonly id: string;
  readonly tenantId: string;
  readonly kind: string;
  readonly status: AdminJobStatus;
  readonly params: Record<string, unknown>;
  readonly progress: AdminJobProgress;
  /** Resume point owned by the job kind; null before the first checkpoint. */
  readonly checkpoint: unknown;
  readonly error: string | null;
  readonly createdBy: string | null;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
}

export const FINISHED_JOB_STATUSES: readonly AdminJobStatus[] = ['succeeded', 'failed'];

export function isFinished(job: Pick<AdminJob, 'status'>): boolean {
  return FINISHED_JOB_STATUSES.includes(job.status);
}

/** `GET /api/admin/jobs/:id` (snake_case JSON), also the CLI's --json output. */
export const adminJobResponseSchema = z.object({
  id: z.uuid(),
  kind: z.string(),
  status: z.enum(['queued', 'running', 'succeeded', 'failed']),
  progress: z
    .object({
      total: z.number().int().nullable(),
      done: z.number().int(),
      failed: z.number().int(),
    })
    .catchall(z.number().int().nullable()),
  error: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});
export type AdminJobResponse = z.infer<typeof adminJobResponseSchema>;

export function toAdminJobResponse(job: AdminJob): AdminJobResponse {
  return {
    id: job.id,
    kind: job.kind,
    status: job.status,
    progress: {
      ...job.progress.counters,
      total: job.progress.total,
      done: job.progress.done,
      failed: job.progress.failed,
    },
    error: job.error,
    created_at: job.createdAt,
    started_at: job.startedAt,
    finished_at: job.finishedAt,
  };
}
