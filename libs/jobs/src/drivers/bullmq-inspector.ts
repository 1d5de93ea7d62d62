import type { Job, JobType, Queue } from 'bullmq';
import type { JobName } from '../job-definitions';
import { payloadRefs, type JobInspector, type QueueJob, type QueueJobState } from '../job-inspector.port';
import { AdminJobError } from '../admin-jobs/admin-job.errors';
import { errorMessage } from '../jobs.errors';
import { withTimeout } from './redis-connection';

/** Jobs read per queue and state at most: the retention policies keep far fewer of a tenant's jobs. */
const SCAN_LIMIT = 5_000;
const TIMEOUT_MS = 5_000;

/** BullMQ keeps prioritized jobs apart from waiting ones; to an admin both are waiting. */
const BULL_STATES: Record<QueueJobState, JobType[]> = {
  waiting: ['waiting', 'prioritized', 'paused'],
  active: ['active'],
  delayed: ['delayed'],
  completed: ['completed'],
  failed: ['failed'],
};

/** The JobInspector over BullMQ queues (one per job name, as the producer creates them). */
export class BullMqJobInspector implements JobInspector {
  constructor(private readonly queueFor: (name: JobName) => Queue) {}

  async list(
    tenantId: string,
    filter: { names: readonly JobName[]; states: readonly QueueJobState[] },
  ): Promise<QueueJob[]> {
    const types = filter.states.flatMap((state) => BULL_STATES[state]);
    const perQueue = await this.redis(
      Promise.all(filter.names.map((name) => this.queueFor(name).getJobs(types, 0, SCAN_LIMIT - 1, false))),
    );
    const mine = perQueue.flat().filter((job) => job && payloadRefs(job.data).tenantId === tenantId);
    return Promise.all(mine.map((job) => this.toQueueJob(job)));
  }

  async find(id: string, names: readonly JobName[]): Promise<QueueJob | null> {
    const found = await this.redis(Promise.all(names.map((name) => this.queueFor(name).getJob(id))));
    const job = found.find((j): j is Job => j !== undefined && j !== null);
    return job ? this.toQueueJob(job) : null;
  }

  async retry(job: QueueJob): Promise<void> {
    const found = await this.redis(this.queueFor(job.name).getJob(job.id));
    if (!found) return;
    await this.redis(found.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true }));
  }

  async cancel(job: QueueJob): Promise<void> {
    const found = await this.redis(this.queueFor(job.name).getJob(job.id));
    if (found) await this.redis(found.remove());
  }

  private async toQueueJob(read: Job): Promise<QueueJob> {
    const state = await this.redis(read.getState());
    // The job's fields were read before its state: one that finished or started in between is read
    // again, so a failed job never shows without its error and attempts.
    const job = fieldsBehind(read, state)
      ? ((await this.redis(this.queueFor(read.name as JobName).getJob(read.id ?? ''))) ?? read)
      : read;
    const refs = payloadRefs(job.data);
    return {
      id: job.id ?? '',
      name: job.name as JobName,
      state: toState(state),
      tenantId: refs.tenantId,
      trackedJobId: refs.trackedJobId,
      attemptsMade: job.attemptsMade,
      maxAttempts: job.opts.attempts ?? 1,
      error: job.failedReason ? job.failedReason : null,
      createdAt: job.timestamp,
      startedAt: job.processedOn ?? null,
      finishedAt: job.finishedOn ?? null,
    };
  }

  private async redis<T>(promise: Promise<T>): Promise<T> {
    try {
      return await withTimeout(promise, TIMEOUT_MS, 'reading the queue');
    } catch (error) {
      if (error instanceof Error && /not in the .* state|locked|does not exist/i.test(error.message))
        throw error;
      throw AdminJobError.queueUnavailable(errorMessage(error));
    }
  }
}

/** The state says the job got further than the fields read before it show. */
function fieldsBehind(job: Job, state: string): boolean {
  if (state === 'completed' || state === 'failed') return !job.finishedOn;
  return state === 'active' && !job.processedOn;
}

function toState(state: string): QueueJobState {
  switch (state) {
    case 'active':
    case 'delayed':
    case 'completed':
    case 'failed':
      return state;
    default:
      return 'waiting';
  }
}
