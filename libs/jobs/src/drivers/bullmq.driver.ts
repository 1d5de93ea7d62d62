import { Logger } from '@nestjs/common';
import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type IORedis from 'ioredis';
import type { JobName } from '../job-definitions';
import type { JobExecutor } from '../job-executor';
import { defaultJobPolicy, type JobPolicyResolver } from '../job-policies';
import { installationOfJobId } from '../installation';
import { requestIdOf, type JobConsumer, type JobQueue, type QueuedJob } from '../job-queue.port';
import { errorMessage, isRetryableJobError, JobsError, JobsErrorCode } from '../jobs.errors';
import { bullMqConnection, closeRedisClient, createMonitorClient, withTimeout } from './redis-connection';

export interface BullMqQueueOptions {
  readonly url: string;
  /** Redis key prefix for every queue (`<prefix>:<job name>:…`), so deployments can share a Redis. */
  readonly prefix: string;
  readonly policy?: JobPolicyResolver;
  /** An add that has not finished by then counts as failed; the relay retries it later. */
  readonly addTimeoutMs?: number;
  readonly connectionName?: string;
  /** How often `watchForLoss` looks for its marker while connected (a FLUSHALL keeps connections up). */
  readonly lossCheckEveryMs?: number;
}

const LOSS_CHECK_EVERY_MS = 5_000;

/** Producer: one BullMQ queue per job name, named after the job. */
export class BullMqJobQueue implements JobQueue {
  readonly driver = 'bullmq' as const;
  private readonly logger = new Logger('BullMqJobQueue');
  private readonly monitor: IORedis;
  private readonly queues = new Map<JobName, Queue>();
  private readonly policy: JobPolicyResolver;
  private readonly addTimeoutMs: number;
  private readonly watchers = new Set<() => void>();
  private lastErrorLog = 0;

  constructor(private readonly options: BullMqQueueOptions) {
    this.policy = options.policy ?? defaultJobPolicy;
    this.addTimeoutMs = options.addTimeoutMs ?? 5_000;
    this.monitor = createMonitorClient(
      { url: options.url, connectionName: `${this.connectionName()}-monitor`, failFast: true },
      (error) => this.logThrottled(error),
    );
  }

  async add(jobs: readonly QueuedJob[]): Promise<void> {
    const byName = new Map<JobName, QueuedJob[]>();
    for (const job of jobs) byName.set(job.name, [...(byName.get(job.name) ?? []), job]);
    const adds = [...byName].map(([name, group]) => {
      const policy = this.policy(name);
      return this.queue(name).addBulk(
        group.map((job) => ({
          name,
          data: job.payload,
          opts: {
            jobId: job.jobId,
            attempts: policy.attempts,
            backoff: { type: 'exponential', delay: policy.backoffMs },
            ...(policy.delayMs ? { delay: policy.delayMs } : {}),
            removeOnComplete: { age: policy.keepCompletedSeconds },
            removeOnFail: { age: policy.keepFailedSeconds },
          },
        })),
      );
    });
    try {
      await withTimeout(Promise.all(adds), this.addTimeoutMs, 'adding jobs to Redis');
    } catch (error) {
      throw new JobsError(JobsErrorCode.QueueUnavailable, `queue unavailable: ${errorMessage(error)}`);
    }
  }

  async waiting(name: JobName): Promise<number> {
    return withTimeout(this.queue(name).getWaitingCount(), this.addTimeoutMs, 'counting waiting jobs');
  }

  async ping(): Promise<void> {
    await withTimeout(this.monitor.ping(), 2_000, 'Redis PING');
  }

  onAvailable(listener: () => void): void {
    this.monitor.on('ready', listener);
  }

  /**
   * A marker key that only watchers set tells a Redis that kept its data from one that lost it: the
   * marker is gone after a FLUSHALL, and after a restart or failover without the data. Setting it
   * with NX is the check, so of all processes watching under one name, exactly one sees each loss.
   */
  watchForLoss(watcher: string, listener: () => Promise<void>): () => void {
    const key = `${this.options.prefix}:queue-marker:${watcher}`;
    let checking = false;
    const check = async (): Promise<void> => {
      if (checking || this.monitor.status !== 'ready') return;
      checking = true;
      try {
        const set = this.monitor.set(key, new Date().toISOString(), 'NX');
        if ((await withTimeout(set, 2_000, 'checking the queue marker')) !== 'OK') return;
        await listener().catch(async (error: unknown) => {
          // Without the marker the next check reports the loss again instead of forgetting it.
          await this.monitor.del(key).catch(() => undefined);
          this.logger.warn(`queue loss not handled yet, retrying: ${errorMessage(error)}`);
        });
      } catch (error) {
        this.logThrottled(error instanceof Error ? error : new Error(String(error)));
      } finally {
        checking = false;
      }
    };
    const onReady = (): void => void check();
    this.monitor.on('ready', onReady);
    const timer = setInterval(onReady, this.options.lossCheckEveryMs ?? LOSS_CHECK_EVERY_MS);
    timer.unref();
    onReady();
    const stop = (): void => {
      clearInterval(timer);
      this.monitor.off('ready', onReady);
      this.watchers.delete(stop);
    };
    this.watchers.add(stop);
    return stop;
  }

  async close(): Promise<void> {
    for (const stop of [...this.watchers]) stop();
    const queues = [...this.queues.values()];
    await settleStartup(queues);
    await Promise.allSettled(queues.map((q) => q.close()));
    await closeRedisClient(this.monitor);
  }

  private connectionName(): string {
    return this.options.connectionName ?? `${this.options.prefix}-producer`;
  }

  /** The producer's queue for a job name (the admin inspector reads the same queues). */
  queueFor(name: JobName): Queue {
    return this.queue(name);
  }

  private queue(name: JobName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      const connection = bullMqConnection({
        url: this.options.url,
        connectionName: this.connectionName(),
        failFast: true,
      });
      queue = new Queue(name, { connection, prefix: this.options.prefix });
      queue.on('error', (error) => this.logThrottled(error));
      this.queues.set(name, queue);
    }
    return queue;
  }

  private logThrottled(error: Error): void {
    // During an outage ioredis reports every reconnect attempt; one line per 10 s is enough.
    if (Date.now() - this.lastErrorLog < 10_000) return;
    this.lastErrorLog = Date.now();
    this.logger.warn(`Redis: ${error.message}`);
  }
}

export interface BullMqConsumerOptions {
  readonly url: string;
  readonly prefix: string;
  readonly concurrency: number;
  readonly jobNames: readonly JobName[];
  readonly executor: JobExecutor;
  readonly connectionName?: string;
  /** How long a job's lock lives without renewal; a dead worker's jobs are re-run after it. */
  readonly lockDurationMs?: number;
  /** This installation's id: jobs another installation added are handed back, not run here. */
  readonly installationId: string;
}

/** How long another installation's job waits before a worker takes it again. */
const FOREIGN_JOB_DELAY_MS = 200;

/** Consumer: one BullMQ worker per job name, each running jobs through the shared executor. */
export class BullMqJobConsumer implements JobConsumer {
  private readonly logger = new Logger('BullMqJobConsumer');
  private workers: Worker[] = [];
  private started = false;
  private lastErrorLog = 0;
  private lastForeignLog = 0;

  constructor(private readonly options: BullMqConsumerOptions) {}

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const connection = bullMqConnection({
      url: this.options.url,
      connectionName: this.options.connectionName ?? `${this.options.prefix}-worker`,
      failFast: false,
    });
    this.workers = this.options.jobNames.map((name) => {
      const worker = new Worker(name, (job: Job, token?: string) => this.process(job, token), {
        connection,
        prefix: this.options.prefix,
        concurrency: this.options.concurrency,
        lockDuration: this.options.lockDurationMs ?? 30_000,
        autorun: true,
      });
      worker.on('error', (error) => this.logThrottled(error));
      return worker;
    });
  }

  async close(graceMs: number): Promise<void> {
    if (!this.started) return;
    this.started = false;
    const workers = this.workers;
    this.workers = [];
    await settleStartup(workers);
    const closing = Promise.allSettled(workers.map((w) => w.close()));
    try {
      await withTimeout(closing, Math.max(graceMs, 1), 'draining active jobs');
    } catch {
      // Still-running jobs lose their lock when it expires; BullMQ then hands them to another worker.
      this.logger.warn(`active jobs did not finish within ${graceMs} ms; releasing them to other workers`);
      await Promise.allSettled(workers.map((w) => w.disconnect()));
    }
  }

  private async process(job: Job, token: string | undefined): Promise<void> {
    const owner = installationOfJobId(job.id);
    if (owner !== undefined && owner !== this.options.installationId && token !== undefined) {
      // Another installation shares this Redis and QUEUE_PREFIX. Its job names a row of its own
      // database: put it back (no attempt is counted) for that installation's workers to take.
      this.warnForeign(owner);
      await job.moveToDelayed(Date.now() + FOREIGN_JOB_DELAY_MS, token);
      throw new DelayedError();
    }
    const data: unknown = job.data;
    const requestId = requestIdOf(data);
    try {
      await this.options.executor.run(job.name, data, {
        jobId: job.id ?? 'unknown',
        attempt: job.attemptsMade + 1,
        maxAttempts: job.opts.attempts ?? 1,
        requestId,
      });
    } catch (error) {
      // BullMQ only skips the remaining attempts for its own error class.
      if (!isRetryableJobError(error)) throw new UnrecoverableError(errorMessage(error));
      throw error;
    }
  }

  private logThrottled(error: Error): void {
    if (Date.now() - this.lastErrorLog < 10_000) return;
    this.lastErrorLog = Date.now();
    this.logger.warn(`Redis: ${error.message}`);
  }

  private warnForeign(owner: string): void {
    if (Date.now() - this.lastForeignLog < 60_000) return;
    this.lastForeignLog = Date.now();
    this.logger.warn(
      `installation ${owner} shares this Redis and QUEUE_PREFIX "${this.options.prefix}": its jobs are handed ` +
        `back to its own workers, which costs both sides throughput. Give each installation its own QUEUE_PREFIX.`,
    );
  }
}

/** How long closing waits for clients that are still connecting (Redis down: they never will). */
const STARTUP_SETTLE_MS = 500;

/**
 * Lets BullMQ clients that are still connecting finish their start-up commands before they are
 * closed: closing one mid-start-up leaves those commands to reject with nobody listening (an
 * unhandled rejection, which ends a Node process).
 */
async function settleStartup(clients: readonly { waitUntilReady(): Promise<unknown> }[]): Promise<void> {
  const ready = Promise.allSettled(clients.map((c) => c.waitUntilReady()));
  await withTimeout(ready, STARTUP_SETTLE_MS, 'Redis clients starting').catch(() => undefined);
}
