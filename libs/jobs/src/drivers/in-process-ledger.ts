import type { JobName } from '../job-definitions';
import { payloadRefs, type QueueJob, type QueueJobState } from '../job-inspector.port';
import type { QueuedJob } from '../job-queue.port';

/** Finished jobs the in-process driver remembers for admins (it keeps no other history). */
const KEEP_FINISHED = 1_000;

interface Record {
  job: QueuedJob;
  state: QueueJobState;
  attemptsMade: number;
  maxAttempts: number;
  error: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
}

/**
 * What the in-process queue has done with its jobs, so embedded mode answers the admin job routes
 * like BullMQ does: unfinished jobs and the last KEEP_FINISHED finished ones.
 */
export class InProcessJobLedger {
  private readonly records = new Map<string, Record>();

  constructor(private readonly now: () => number) {}

  added(job: QueuedJob, maxAttempts: number): void {
    this.records.set(job.jobId, {
      job,
      state: 'waiting',
      attemptsMade: 0,
      maxAttempts,
      error: null,
      createdAt: this.now(),
      startedAt: null,
      finishedAt: null,
    });
  }

  started(jobId: string): void {
    this.update(jobId, (r) => {
      r.state = 'active';
      r.startedAt ??= this.now();
    });
  }

  /** An attempt ended: `retrying` puts the job in delayed, else it is finished. */
  ended(jobId: string, outcome: { error?: unknown; retrying: boolean }): void {
    this.update(jobId, (r) => {
      r.attemptsMade += 1;
      r.error =
        outcome.error === undefined ? null : String((outcome.error as Error).message ?? outcome.error);
      if (outcome.retrying) {
        r.state = 'delayed';
        return;
      }
      r.state = outcome.error === undefined ? 'completed' : 'failed';
      r.finishedAt = this.now();
    });
    this.trim();
  }

  /** A retried job starts over; a cancelled one is forgotten. */
  requeued(jobId: string): void {
    this.update(jobId, (r) => {
      Object.assign(r, { state: 'waiting', attemptsMade: 0, error: null, finishedAt: null });
    });
  }

  forget(jobId: string): void {
    this.records.delete(jobId);
  }

  get(jobId: string): QueueJob | null {
    const record = this.records.get(jobId);
    return record ? toQueueJob(record) : null;
  }

  all(): QueueJob[] {
    return [...this.records.values()].map(toQueueJob);
  }

  queued(jobId: string): QueuedJob | undefined {
    return this.records.get(jobId)?.job;
  }

  private update(jobId: string, change: (record: Record) => void): void {
    const record = this.records.get(jobId);
    if (record) change(record);
  }

  private trim(): void {
    const finished = [...this.records.values()].filter((r) => r.finishedAt !== null);
    for (const record of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) {
      this.records.delete(record.job.jobId);
    }
  }
}

function toQueueJob(record: Record): QueueJob {
  const refs = payloadRefs(record.job.payload);
  return {
    id: record.job.jobId,
    name: record.job.name as JobName,
    state: record.state,
    tenantId: refs.tenantId,
    trackedJobId: refs.trackedJobId,
    attemptsMade: record.attemptsMade,
    maxAttempts: record.maxAttempts,
    error: record.error,
    createdAt: record.createdAt,
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
  };
}
