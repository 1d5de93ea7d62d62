import { z } from 'zod';
import type { QueueJob } from '../job-inspector.port';
import { QUEUE_JOB_STATES } from '../job-inspector.port';
import type { AdminJob, AdminJobStatus } from './admin-job';

/**
 * A job as admins see it: the queue's record (attempts, state, error), the `jobs` row of a
 * resumable job (progress), or both.
 */
export interface JobView {
  /** The id it was asked for or listed by: a `jobs` row's uuid, or the queue's job id. */
  readonly id: string;
  readonly name: string;
  readonly tracked: AdminJob | null;
  readonly queued: QueueJob | null;
  /** The answer to a cancel: the queue has forgotten the job. */
  readonly cancelled?: boolean;
}

const STATUS_OF_STATE: Record<QueueJob['state'], AdminJobStatus> = {
  waiting: 'queued',
  delayed: 'queued',
  active: 'running',
  completed: 'succeeded',
  failed: 'failed',
};

/** `GET /api/admin/jobs/:id`, `GET /api/jobs/:id` and the list items (snake_case JSON); also the CLI's --json. */
export const adminJobResponseSchema = z.object({
  id: z
    .string()
    .describe('The `jobs` uuid of a resumable job (reindex, migration, import), else the queue job id'),
  kind: z.string().describe('The job name (same as `name`)'),
  name: z.string(),
  status: z.enum(['queued', 'running', 'succeeded', 'failed']),
  state: z
    .enum([...QUEUE_JOB_STATES, 'cancelled'])
    .nullable()
    .describe(
      'Where the queue holds it; null once the queue no longer keeps it; `cancelled` only answers a cancel',
    ),
  progress: z
    .object({
      total: z.number().int().nullable(),
      done: z.number().int(),
      failed: z.number().int(),
    })
    .catchall(z.number().int().nullable()),
  attempts: z.number().int().nullable().describe('Runs so far (null when the queue no longer holds the job)'),
  max_attempts: z.number().int().nullable(),
  error: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  queue_job_id: z.string().nullable(),
  tracked_job_id: z.uuid().nullable(),
});
export type AdminJobResponse = z.infer<typeof adminJobResponseSchema>;

export const adminJobsPageResponseSchema = z.object({
  jobs: z.array(adminJobResponseSchema).describe('Newest first'),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page'),
});

export function toAdminJobResponse(job: AdminJob | JobView): AdminJobResponse {
  const view: JobView = 'queued' in job ? job : { id: job.id, name: job.kind, tracked: job, queued: null };
  const { tracked, queued } = view;
  const progress = tracked?.progress ?? { total: null, done: 0, failed: 0 };
  return {
    id: view.id,
    kind: view.name,
    name: view.name,
    status: tracked?.status ?? (queued ? STATUS_OF_STATE[queued.state] : 'failed'),
    state: view.cancelled ? 'cancelled' : (queued?.state ?? null),
    progress: { ...progress.counters, total: progress.total, done: progress.done, failed: progress.failed },
    attempts: queued?.attemptsMade ?? null,
    max_attempts: queued?.maxAttempts ?? null,
    error: tracked?.error ?? queued?.error ?? null,
    created_at: tracked?.createdAt ?? wireTime(queued?.createdAt ?? 0),
    started_at: tracked?.startedAt ?? (queued?.startedAt ? wireTime(queued.startedAt) : null),
    finished_at: tracked?.finishedAt ?? (queued?.finishedAt ? wireTime(queued.finishedAt) : null),
    queue_job_id: queued?.id ?? null,
    tracked_job_id: tracked?.id ?? null,
  };
}

/** Epoch milliseconds in the wire format the `jobs` rows use (microseconds, explicit offset). */
function wireTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}
