import { JOB_DEFINITIONS, JOB_NAMES, type JobName } from './job-definitions';

export const JOB_INSPECTOR = Symbol('JOB_INSPECTOR');

/** Where a queued job is. `cancelled` only describes the answer to a cancel: the queue then forgets it. */
export const QUEUE_JOB_STATES = ['waiting', 'active', 'delayed', 'completed', 'failed'] as const;
export type QueueJobState = (typeof QUEUE_JOB_STATES)[number];

/** A job as the queue holds it (BullMQ, or the in-process driver's recent history). */
export interface QueueJob {
  readonly id: string;
  readonly name: JobName;
  readonly state: QueueJobState;
  /** The payload's tenant; null for system jobs (schedules, index batches spanning tenants). */
  readonly tenantId: string | null;
  /** The `jobs` row a resumable job reports progress to (payload `jobId`), if any. */
  readonly trackedJobId: string | null;
  readonly attemptsMade: number;
  readonly maxAttempts: number;
  readonly error: string | null;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly startedAt: number | null;
  readonly finishedAt: number | null;
}

/**
 * Admin's view into the queue: read jobs, put a failed one back, drop one that has not started.
 * Jobs are found by the tenant in their payload; only names whose payload always carries one are
 * searched, so system jobs never show up in a tenant's list.
 */
export interface JobInspector {
  /** Jobs of these names and states whose payload names the tenant (unordered). */
  list(
    tenantId: string,
    filter: { names: readonly JobName[]; states: readonly QueueJobState[] },
  ): Promise<QueueJob[]>;
  /** A job by queue id among these names, whatever its tenant; null when the queue no longer holds it. */
  find(id: string, names: readonly JobName[]): Promise<QueueJob | null>;
  /** Moves a failed job back to waiting with its attempts reset. */
  retry(job: QueueJob): Promise<void>;
  /** Removes a waiting or delayed job. */
  cancel(job: QueueJob): Promise<void>;
}

/** Job names whose payload always names a tenant: the ones a tenant's admin may see. */
export const TENANT_JOB_NAMES: readonly JobName[] = JOB_NAMES.filter(
  (name) => !JOB_DEFINITIONS[name].shape.tenantId.safeParse(undefined).success,
);

/** The tenant and tracked job a payload names (each null when absent). */
export function payloadRefs(payload: unknown): { tenantId: string | null; trackedJobId: string | null } {
  const record = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : {};
  return {
    tenantId: typeof record.tenantId === 'string' ? record.tenantId : null,
    trackedJobId: typeof record.jobId === 'string' ? record.jobId : null,
  };
}

/**
 * The JOB_INSPECTOR the admin job use cases get from JobsModule: it answers through the process's
 * queue once the job runtime (JobsRuntimeModule, imported once by each composition root) has
 * attached it, so the runtime need not be global for the many modules that import JobsModule.
 */
export class AttachedJobInspector implements JobInspector {
  private inner: JobInspector | null = null;

  attach(inspector: JobInspector): JobInspector {
    this.inner = inspector;
    return inspector;
  }

  private get queue(): JobInspector {
    if (!this.inner) throw new Error('no job runtime in this process: JobsRuntimeModule was not imported');
    return this.inner;
  }

  list(
    tenantId: string,
    filter: { names: readonly JobName[]; states: readonly QueueJobState[] },
  ): Promise<QueueJob[]> {
    return this.queue.list(tenantId, filter);
  }

  find(id: string, names: readonly JobName[]): Promise<QueueJob | null> {
    return this.queue.find(id, names);
  }

  retry(job: QueueJob): Promise<void> {
    return this.queue.retry(job);
  }

  cancel(job: QueueJob): Promise<void> {
    return this.queue.cancel(job);
  }
}
