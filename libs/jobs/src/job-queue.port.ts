import type { JobName, JobPayload } from './job-definitions';

export const JOB_QUEUE = Symbol('JOB_QUEUE');
export const JOB_CONSUMER = Symbol('JOB_CONSUMER');

/** A job ready for the queue. The id is deterministic, so adding the same job twice runs it once. */
export interface QueuedJob<N extends JobName = JobName> {
  readonly name: N;
  readonly jobId: string;
  readonly payload: JobPayload<N>;
  readonly requestId?: string;
}

/** Producer side: BullMQ in server mode, the in-process driver in embedded mode and tests. */
export interface JobQueue {
  readonly driver: 'bullmq' | 'in-process';
  /** Adds all jobs or throws; jobs whose id is already known are ignored. */
  add(jobs: readonly QueuedJob[]): Promise<void>;
  /** Jobs of this name added and not yet taken by a worker. */
  waiting(name: JobName): Promise<number>;
  /** Resolves when the backing store answers; throws otherwise (readiness probes). */
  ping(): Promise<void>;
  /** Called whenever the backing store becomes reachable again, so the relay can retry at once. */
  onAvailable(listener: () => void): void;
  /**
   * Calls `listener` when the backing store turns out to have lost the jobs it held (Redis flushed,
   * or restarted or failed over without its data), checked whenever the connection is (re)made and
   * every few seconds. One watcher of a name sees each loss, however many processes watch; a
   * listener that rejects is called again at the next check. Returns a function that stops watching.
   */
  watchForLoss(watcher: string, listener: () => Promise<void>): () => void;
  close(): Promise<void>;
}

/** Consumer side: runs registered handlers for queued jobs. */
export interface JobConsumer {
  start(): Promise<void>;
  /** Stops taking jobs; active ones get `graceMs` to finish, then are released for another worker. */
  close(graceMs: number): Promise<void>;
}

/** What a handler knows about the run it is part of. */
export interface JobContext {
  readonly jobId: string;
  /** 1 for the first run. */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly requestId?: string;
}

export function isFinalAttempt(context: Pick<JobContext, 'attempt' | 'maxAttempts'>): boolean {
  return context.attempt >= context.maxAttempts;
}

/**
 * The job id for an outbox row: stable across relays and retries of that row, and unique across
 * installations and database incarnations (installation id, row id, row creation time in µs).
 * BullMQ forbids ':' and integer ids.
 */
export function outboxJobId(installationId: string, row: { id: string | number; createdUs: string }): string {
  return `o-${installationId}-${row.id}-${row.createdUs}`;
}

/** The job id of a scheduled job's slot: one run per slot and installation. */
export function slotJobId(installationId: string, idPrefix: string, slotIso: string): string {
  return `s-${installationId}-${idPrefix}-${slotIso.replace(/[^0-9]/g, '')}`;
}

/** Payloads may carry the request id that caused them; used to correlate logs. */
export function requestIdOf(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null || !('requestId' in payload)) return undefined;
  const value = (payload as { requestId: unknown }).requestId;
  return typeof value === 'string' ? value : undefined;
}
