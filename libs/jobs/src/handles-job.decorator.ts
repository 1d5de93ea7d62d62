import { SetMetadata } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import type { JobName, JobPayload } from './job-definitions';
import type { JobContext } from './job-queue.port';

export const HANDLES_JOB = Symbol('HANDLES_JOB');

/** A periodic job: enqueued once per slot cluster-wide by every consuming process. */
export interface JobSchedule {
  /** One run per slot of this length. */
  readonly slotMs: number;
  /** How often each process tries to enqueue the current slot (more often than slots, so a restart skips none). */
  readonly enqueueEveryMs: number;
  /** Prefix of the slot's deterministic job id. */
  readonly idPrefix: string;
  /**
   * Also run at once when the queue lost its jobs (a flushed Redis, or one restarted or failed over
   * without its data), with `queueLost: true` in the payload: for jobs that repair such a loss.
   */
  readonly runAfterQueueLoss?: boolean;
}

/** A fixed schedule, or one read from the configuration at boot. */
export type JobScheduleSpec = JobSchedule | ((config: AppConfig) => JobSchedule);

export interface HandlesJobMetadata {
  readonly name: JobName;
  readonly schedule?: JobScheduleSpec;
}

/** The method a job runs: the payload arrives parsed with the job's zod schema. */
export type JobMethod<N extends JobName> = (payload: JobPayload<N>, context: JobContext) => Promise<unknown>;

/**
 * Declares the method that handles a job, beside the use case it calls. The jobs runtime
 * discovers every such method at boot, parses each payload once with the job's schema before the
 * call, and refuses to start consuming when a job has no handler or two. Jobs whose payload is
 * only a schedule slot also pass `schedule`.
 */
export function HandlesJob<N extends JobName>(name: N, options: { schedule?: JobScheduleSpec } = {}) {
  const metadata: HandlesJobMetadata = { name, schedule: options.schedule };
  return SetMetadata(HANDLES_JOB, metadata) as <T extends JobMethod<N>>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<T>,
  ) => void;
}
