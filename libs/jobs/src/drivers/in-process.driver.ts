import { Logger } from '@nestjs/common';
import type { JobExecutor } from '../job-executor';
import { backoffDelayMs, defaultJobPolicy, type JobPolicyResolver } from '../job-policies';
import type { JobName } from '../job-definitions';
import type { JobConsumer, JobQueue, QueuedJob } from '../job-queue.port';
import type { JobInspector, QueueJob, QueueJobState } from '../job-inspector.port';
import { InProcessJobLedger } from './in-process-ledger';
import { isRetryableJobError, JobsError, JobsErrorCode } from '../jobs.errors';

export interface InProcessDriverOptions {
  readonly concurrency: number;
  readonly policy?: JobPolicyResolver;
  /** Injectable clock for tests. */
  readonly now?: () => number;
}

interface Entry {
  readonly job: QueuedJob;
  readonly attempt: number;
}

/**
 * Queue and consumer in one, for embedded mode and tests: jobs run in this process with the same
 * retry policy and id-based dedupe as BullMQ. Jobs live in memory only; the outbox row is already
 * marked dispatched, so a crash loses queued jobs (acceptable for a single-user embedded setup).
 */
export class InProcessJobQueue implements JobQueue, JobConsumer, JobInspector {
  readonly driver = 'in-process' as const;
  private readonly logger = new Logger('InProcessJobQueue');
  private readonly policy: JobPolicyResolver;
  private readonly now: () => number;
  private readonly pending: Entry[] = [];
  /** jobId → time until which a re-add is ignored (Infinity while queued or running). */
  private readonly known = new Map<string, number>();
  private readonly retryTimers = new Map<NodeJS.Timeout, string>();
  private readonly ledger: InProcessJobLedger;
  private waiters: Array<{ readonly ready: () => boolean; readonly resolve: () => void }> = [];
  private active = 0;
  private started = false;
  private closed = false;

  constructor(
    private readonly executor: JobExecutor,
    private readonly options: InProcessDriverOptions,
  ) {
    this.policy = options.policy ?? defaultJobPolicy;
    this.now = options.now ?? Date.now;
    this.ledger = new InProcessJobLedger(this.now);
  }

  async add(jobs: readonly QueuedJob[]): Promise<void> {
    if (this.closed) throw new JobsError(JobsErrorCode.QueueClosed, 'in-process queue is closed');
    this.forgetExpired();
    for (const job of jobs) {
      if (this.known.has(job.jobId)) continue;
      this.known.set(job.jobId, Number.POSITIVE_INFINITY);
      this.ledger.added(job, this.policy(job.name).attempts);
      this.pending.push({ job, attempt: 1 });
    }
    this.pump();
  }

  async waiting(name: JobName): Promise<number> {
    return this.pending.filter((entry) => entry.job.name === name).length;
  }

  async ping(): Promise<void> {
    if (this.closed) throw new JobsError(JobsErrorCode.QueueClosed, 'in-process queue is closed');
  }

  onAvailable(): void {
    // Always available: nothing to wait for.
  }

  watchForLoss(): () => void {
    // Its jobs live and die with this process; what a crash lost, the scheduled sweep finds.
    return () => undefined;
  }

  async start(): Promise<void> {
    this.started = true;
    this.pump();
  }

  /** Resolves when nothing is queued, running or waiting for a retry (tests). */
  async whenIdle(): Promise<void> {
    await this.waitFor(() => this.active === 0 && this.pending.length === 0 && this.retryTimers.size === 0);
  }

  async close(graceMs = 0): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Queued jobs keep running during the grace period; retries scheduled later are dropped.
    const drained = this.waitFor(() => this.active === 0 && this.pending.length === 0);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const result = await Promise.race([drained, timedOut]);
    clearTimeout(timer);
    for (const t of this.retryTimers.keys()) clearTimeout(t);
    if (result === 'timeout' || this.retryTimers.size > 0) {
      this.logger.warn(
        `closed with ${this.active} running, ${this.pending.length} queued and ${this.retryTimers.size} retrying jobs`,
      );
    }
    this.retryTimers.clear();
    this.pending.length = 0;
    this.started = false;
    this.notifyWaiters(true);
  }

  private pump(): void {
    while (this.started && this.active < this.options.concurrency && this.pending.length > 0) {
      const entry = this.pending.shift() as Entry;
      this.active += 1;
      void this.runEntry(entry);
    }
    this.notifyWaiters();
  }

  private async runEntry(entry: Entry): Promise<void> {
    const { job, attempt } = entry;
    const policy = this.policy(job.name);
    this.ledger.started(job.jobId);
    try {
      await this.executor.run(job.name, job.payload, {
        jobId: job.jobId,
        attempt,
        maxAttempts: policy.attempts,
        requestId: job.requestId,
      });
      this.known.set(job.jobId, this.now() + policy.keepCompletedSeconds * 1000);
      this.ledger.ended(job.jobId, { retrying: false });
    } catch (error) {
      const retrying = attempt < policy.attempts && isRetryableJobError(error) && !this.closed;
      this.ledger.ended(job.jobId, { error, retrying });
      if (retrying) {
        const timer = setTimeout(
          () => {
            this.retryTimers.delete(timer);
            this.pending.push({ job, attempt: attempt + 1 });
            this.pump();
          },
          backoffDelayMs(policy, attempt),
        );
        this.retryTimers.set(timer, job.jobId);
      } else {
        this.known.set(job.jobId, this.now() + policy.keepFailedSeconds * 1000);
      }
    } finally {
      this.active -= 1;
      this.pump();
    }
  }

  async list(
    tenantId: string,
    filter: { names: readonly JobName[]; states: readonly QueueJobState[] },
  ): Promise<QueueJob[]> {
    return this.ledger
      .all()
      .filter(
        (j) => j.tenantId === tenantId && filter.names.includes(j.name) && filter.states.includes(j.state),
      );
  }

  async find(id: string, names: readonly JobName[]): Promise<QueueJob | null> {
    const job = this.ledger.get(id);
    return job && names.includes(job.name) ? job : null;
  }

  async retry(job: QueueJob): Promise<void> {
    const queued = this.ledger.queued(job.id);
    if (!queued || this.ledger.get(job.id)?.state !== 'failed') return;
    this.known.set(job.id, Number.POSITIVE_INFINITY);
    this.ledger.requeued(job.id);
    this.pending.push({ job: queued, attempt: 1 });
    this.pump();
  }

  async cancel(job: QueueJob): Promise<void> {
    const index = this.pending.findIndex((entry) => entry.job.jobId === job.id);
    if (index >= 0) this.pending.splice(index, 1);
    for (const [timer, jobId] of this.retryTimers) {
      if (jobId !== job.id) continue;
      clearTimeout(timer);
      this.retryTimers.delete(timer);
    }
    this.known.delete(job.id);
    this.ledger.forget(job.id);
    this.notifyWaiters();
  }

  private waitFor(ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiters.push({ ready, resolve }));
  }

  /** `all` releases every waiter (on close), whether or not its condition holds. */
  private notifyWaiters(all = false): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (all || waiter.ready()) waiter.resolve();
      else this.waiters.push(waiter);
    }
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [id, until] of this.known) if (until <= now) this.known.delete(id);
  }
}
