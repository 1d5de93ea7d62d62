import { Logger } from '@nestjs/common';
import { type TransactionRunner } from '@app/persistence';
import { JOB_DEFINITIONS, type JobName } from '../job-definitions';
import { outboxJobId, requestIdOf, type JobQueue } from '../job-queue.port';
import { errorMessage } from '../jobs.errors';
import { OUTBOX_COMMITS, type OutboxSignal } from './outbox-signal';
import { coalesceIndexJobs, INDEX_BATCH_JOB, INDEX_JOB, type RelayedJob } from './coalesce-index-jobs';
import { OutboxRepository, type OutboxBacklog, type OutboxRow } from './outbox.repository';

export interface OutboxRelayOptions {
  /** This installation's id (INSTALLATION_ID), part of every job id. */
  readonly installationId: string;
  readonly batchSize: number;
  /** Fallback cadence; rows this process writes go out right after their commit. */
  readonly pollIntervalMs: number;
  /** Commits that wake the relay (the process's own writers unless a test says otherwise). */
  readonly commits?: OutboxSignal;
  /** Longest pause after failed passes (queue down), unless the queue reports it is back. */
  readonly maxBackoffMs?: number;
  /** Rows whose job this build does not know wait this long before another replica may try. */
  readonly invalidRowDelayMs?: number;
  /** How soon a relay holding index rows looks again (default HOLDING_RECHECK_MS). */
  readonly holdingRecheckMs?: number;
}

export interface RelayPassResult {
  readonly dispatched: number;
  readonly invalid: number;
  /** Rows whose add failed (queue unavailable); they stay undispatched. */
  readonly failed: number;
  /** `memory.index` rows were left in the outbox because batches of them still wait for workers. */
  readonly holding: boolean;
}

/**
 * Waiting `memory.index-batch` jobs from which on new index rows stay in the outbox. More than one,
 * so the queue's waiting list still shows a backlog to an autoscaler (KEDA) and every worker finds a
 * batch to take; few, so a backlog is coalesced into large batches instead of queued as small ones.
 */
export const INDEX_BATCHES_WAITING_BEFORE_HOLD = 4;

/** How soon a relay holding index rows looks again whether the workers have taken the waiting batches. */
const HOLDING_RECHECK_MS = 20;

/**
 * Moves committed outbox rows to the job queue. Each pass runs in one system transaction:
 * lock a batch (SKIP LOCKED), add the jobs with ids derived from the row ids (the pass's
 * `memory.index` rows coalesced into batch jobs), mark the rows dispatched, commit. If the add fails the attempt is recorded and the rows wait for the next pass;
 * if the process dies after the add but before the commit, the next pass re-adds the same ids,
 * which the queue ignores. Several relays (api and worker replicas) can run at once.
 */
export class OutboxRelay {
  private readonly logger = new Logger('OutboxRelay');
  private readonly repository = new OutboxRepository();
  private unsubscribe: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private nudged = false;
  /** The last pass left index rows for busy workers: commits then wait for the next look. */
  private holding = false;
  private running = false;
  private stopping = false;
  private consecutiveFailures = 0;

  constructor(
    private readonly transactions: TransactionRunner,
    private readonly queue: JobQueue,
    private readonly options: OutboxRelayOptions,
  ) {
    queue.onAvailable(() => {
      this.consecutiveFailures = 0;
      this.nudged = true;
      this.wake?.();
    });
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.stopping = false;
    this.unsubscribe = (this.options.commits ?? OUTBOX_COMMITS).subscribe(() => this.nudge());
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.stopping = true;
    this.wake?.();
    this.unsubscribe?.();
    await this.loop;
    this.loop = undefined;
    this.running = false;
  }

  /**
   * Asks for a pass as soon as the current one (if any) ends. While the queue is failing the relay
   * keeps its backoff instead: a burst of commits must not turn into a burst of doomed passes. While
   * it holds index rows it keeps its short recheck: a commit then only adds to the backlog the next
   * look coalesces, and a pass per commit would ask Redis and Postgres again for nothing.
   */
  nudge(): void {
    this.nudged = true;
    if (this.consecutiveFailures === 0 && !this.holding) this.wake?.();
  }

  /**
   * One batch. Exposed for tests and for callers that want to flush synchronously.
   *
   * While INDEX_BATCHES_WAITING_BEFORE_HOLD `memory.index-batch` jobs wait in the queue (the
   * workers are behind), new `memory.index` rows stay in the outbox: a later pass then coalesces
   * the backlog into batches of up to `batchSize` rows, which the worker embeds far faster than
   * many small ones. When the workers keep up nothing waits, and each row goes out at once.
   */
  async relayOnce(): Promise<RelayPassResult> {
    const holding = await this.queue.waiting(INDEX_BATCH_JOB).then(
      (waiting) => waiting >= INDEX_BATCHES_WAITING_BEFORE_HOLD,
      () => false,
    );
    return this.transactions.asSystem(async (tx) => {
      const rows = await this.repository.claimBatch(tx, this.options.batchSize, holding ? [INDEX_JOB] : []);
      if (rows.length === 0) return { dispatched: 0, invalid: 0, failed: 0, holding };
      const { jobs, invalid } = toJobs(this.options.installationId, rows);
      if (invalid.length > 0) {
        for (const { row, reason } of invalid) {
          await this.repository.recordFailure(tx, [row.id], reason, this.options.invalidRowDelayMs ?? 60_000);
        }
        this.logger.error(`${invalid.length} outbox rows cannot be queued: ${invalid[0].reason}`);
      }
      const ids = jobs.map((j) => j.row.id);
      try {
        await this.queue.add(coalesceIndexJobs(this.options.installationId, jobs));
      } catch (error) {
        await this.repository.recordFailure(tx, ids, errorMessage(error));
        return { dispatched: 0, invalid: invalid.length, failed: ids.length, holding };
      }
      // The pass's last statement: the commit goes with it.
      await this.repository.markDispatched(tx, ids, { last: true });
      return { dispatched: ids.length, invalid: invalid.length, failed: 0, holding };
    });
  }

  /** Relays until the backlog is empty or a pass fails. */
  async drain(): Promise<RelayPassResult> {
    let dispatched = 0;
    let invalid = 0;
    for (;;) {
      const pass = await this.relayOnce();
      dispatched += pass.dispatched;
      invalid += pass.invalid;
      if (pass.failed > 0) return { dispatched, invalid, failed: pass.failed, holding: pass.holding };
      if (pass.dispatched + pass.invalid < this.options.batchSize || this.stopping) {
        return { dispatched, invalid, failed: 0, holding: pass.holding };
      }
    }
  }

  backlog(): Promise<OutboxBacklog> {
    return this.transactions.asSystem((tx) => this.repository.backlog(tx));
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      this.nudged = false;
      let holding = false;
      try {
        const result = await this.drain();
        holding = result.holding;
        this.holding = holding;
        this.consecutiveFailures = result.failed > 0 ? this.consecutiveFailures + 1 : 0;
      } catch (error) {
        // Database trouble: keep the loop alive and try again after a pause.
        this.consecutiveFailures += 1;
        this.logger.warn(`outbox pass failed: ${errorMessage(error)}`);
      }
      if (this.stopping) break;
      // Commits while holding only add to the backlog the next look coalesces; no pass per commit.
      if (this.nudged && this.consecutiveFailures === 0 && !holding) continue;
      await this.sleep(this.delay(holding));
    }
  }

  private delay(holding: boolean): number {
    const { pollIntervalMs } = this.options;
    if (this.consecutiveFailures === 0)
      return holding
        ? Math.min(pollIntervalMs, this.options.holdingRecheckMs ?? HOLDING_RECHECK_MS)
        : pollIntervalMs;
    const max = this.options.maxBackoffMs ?? Math.max(pollIntervalMs, 10_000);
    return Math.min(max, pollIntervalMs * 2 ** Math.min(this.consecutiveFailures, 16));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

interface InvalidRow {
  readonly row: OutboxRow;
  readonly reason: string;
}

/** Rows from a newer release may name jobs this build does not know; those are left for it. */
function toJobs(
  installationId: string,
  rows: readonly OutboxRow[],
): {
  jobs: RelayedJob[];
  invalid: InvalidRow[];
} {
  const jobs: RelayedJob[] = [];
  const invalid: InvalidRow[] = [];
  for (const row of rows) {
    if (!Object.hasOwn(JOB_DEFINITIONS, row.jobName)) {
      invalid.push({ row, reason: `unknown job "${row.jobName}" (outbox row ${row.id})` });
      continue;
    }
    const name = row.jobName as JobName;
    const parsed = JOB_DEFINITIONS[name].safeParse(row.payload);
    if (!parsed.success) {
      invalid.push({
        row,
        reason: `invalid payload for "${name}" (outbox row ${row.id}): ${parsed.error.message}`,
      });
      continue;
    }
    jobs.push({
      row,
      job: {
        name,
        jobId: outboxJobId(installationId, row),
        payload: parsed.data,
        requestId: requestIdOf(parsed.data) ?? row.requestId ?? undefined,
      },
    });
  }
  return { jobs, invalid };
}
