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
