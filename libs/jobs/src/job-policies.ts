import type { JobName } from './job-definitions';

/** How a job is retried and how long finished jobs are kept (their ids dedupe re-adds meanwhile). */
export interface JobPolicy {
  /** Total tries, the first run included. */
  readonly attempts: number;
  /** Exponential backoff base: retry n waits backoffMs * 2^(n-1). */
  readonly backoffMs: number;
  /** Completed jobs stay this long, so a relay re-adding the same outbox row is a no-op. */
  readonly keepCompletedSeconds: number;
  readonly keepFailedSeconds: number;
  /**
   * Runs the job this long after it is queued (Redis queue only; the in-process queue runs it at
   * once): for jobs that gather work, so that a burst of writes costs one run, not one per write.
   */
  readonly delayMs?: number;
}

const DAY = 24 * 60 * 60;

export const DEFAULT_JOB_POLICY: JobPolicy = {
  attempts: 5,
  backoffMs: 2_000,
  keepCompletedSeconds: DAY,
  keepFailedSeconds: 7 * DAY,
};

export const JOB_POLICIES: Readonly<Record<JobName, JobPolicy>> = {
  // A lost or dropped add is caught by the reconciliation sweep, so completed ids need not be kept
  // long: an hour covers a relay re-adding a row after a crash between add and commit.
  'memory.index': { ...DEFAULT_JOB_POLICY, keepCompletedSeconds: 60 * 60 },
  'memory.index-batch': { ...DEFAULT_JOB_POLICY, keepCompletedSeconds: 60 * 60 },
  'embeddings.reconcile': {
    ...DEFAULT_JOB_POLICY,
    attempts: 2,
    backoffMs: 10_000,
    keepCompletedSeconds: 60 * 60,
  },
  // Idempotent and re-run every slot; a build that failed is dropped and rebuilt by the next one.
  'embeddings.tenant-indexes': {
    ...DEFAULT_JOB_POLICY,
    attempts: 2,
    backoffMs: 60_000,
    keepCompletedSeconds: 60 * 60,
  },
  // Resumable from its checkpoint, so retries continue rather than restart; more patience.
  'embeddings.reindex': { ...DEFAULT_JOB_POLICY, attempts: 10, backoffMs: 5_000 },
  // Idempotent and re-run every slot anyway; a couple of retries is enough.
  'maintenance.analyze': {
    ...DEFAULT_JOB_POLICY,
    attempts: 2,
    backoffMs: 30_000,
    keepCompletedSeconds: 60 * 60,
  },
  // Hourly and idempotent: the next slot retries whatever a failed run left.
  'audit.purge': { ...DEFAULT_JOB_POLICY, attempts: 3, backoffMs: 30_000, keepCompletedSeconds: 60 * 60 },
  'outbox.purge': { ...DEFAULT_JOB_POLICY, attempts: 3, backoffMs: 30_000, keepCompletedSeconds: 60 * 60 },
  'memories.expire': { ...DEFAULT_JOB_POLICY, attempts: 3, backoffMs: 30_000, keepCompletedSeconds: 60 * 60 },
  // Every ten seconds and idempotent: the next slot is the retry; keep completed ids only briefly.
  'memories.fold-text-stats': {
    ...DEFAULT_JOB_POLICY,
    attempts: 1,
    keepCompletedSeconds: 10 * 60,
    keepFailedSeconds: DAY,
  },
  'memories.fold-usage': {
    ...DEFAULT_JOB_POLICY,
    attempts: 1,
    keepCompletedSeconds: 10 * 60,
    keepFailedSeconds: DAY,
  },
  'sync.purge-tombstones': { ...DEFAULT_JOB_POLICY, attempts: 3, backoffMs: 30_000 },
  // Resumable from its checkpoint; Vault may be sealed for a while, so retry patiently.
  'secrets.migrate': { ...DEFAULT_JOB_POLICY, attempts: 10, backoffMs: 5_000 },
  'secrets.cleanup': { ...DEFAULT_JOB_POLICY, attempts: 3, backoffMs: 30_000 },
  // Idempotent (it handles whatever is still unprocessed); one queued per session at a time, kept briefly.
  // A second's delay lets a busy session's batches gather under the one queued job.
  'sessions.process': { ...DEFAULT_JOB_POLICY, keepCompletedSeconds: 60 * 60, delayMs: 1_000 },
  // Idempotent (unextracted events only; exact duplicates are refused by the memories' hash).
  'sessions.extract': { ...DEFAULT_JOB_POLICY, keepCompletedSeconds: 60 * 60 },
  // Idempotent (an applied event is not applied again); its row keeps the outcome.
  'code-events.apply': { ...DEFAULT_JOB_POLICY, keepCompletedSeconds: 60 * 60 },
  'code-events.purge': {
    ...DEFAULT_JOB_POLICY,
    attempts: 3,
    backoffMs: 30_000,
    keepCompletedSeconds: 60 * 60,
  },
  // Resumable (each step takes what is still unprocessed); its `jobs` row keeps the outcome.
  'sessions.import': { ...DEFAULT_JOB_POLICY, keepCompletedSeconds: 60 * 60 },
  // Retries follow WEBHOOK_MAX_ATTEMPTS and WEBHOOK_RETRY_BASE_MS (configuredJobPolicy); these are
  // the defaults. Each attempt is in the delivery's log; a redeliver is a new job.
  'webhooks.deliver': { ...DEFAULT_JOB_POLICY, attempts: 10, backoffMs: 30_000 },
  'webhooks.purge': { ...DEFAULT_JOB_POLICY, attempts: 3, backoffMs: 30_000, keepCompletedSeconds: 60 * 60 },
};

export type JobPolicyResolver = (name: JobName) => JobPolicy;

export const defaultJobPolicy: JobPolicyResolver = (name) => JOB_POLICIES[name] ?? DEFAULT_JOB_POLICY;

/** Delay before retry number `retry` (1 = the first retry), as BullMQ's exponential backoff. */
export function backoffDelayMs(policy: JobPolicy, retry: number): number {
  return Math.round(policy.backoffMs * 2 ** Math.max(0, retry - 1));
}

/** The policies, with the webhook retries the configuration sets (WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_BASE_MS). */
export function configuredJobPolicy(webhooks: {
  maxAttempts: number;
  retryBaseMs: number;
}): JobPolicyResolver {
  const delivery: JobPolicy = {
    ...JOB_POLICIES['webhooks.deliver'],
    attempts: webhooks.maxAttempts,
    backoffMs: webhooks.retryBaseMs,
  };
  return (name) => (name === 'webhooks.deliver' ? delivery : defaultJobPolicy(name));
}
