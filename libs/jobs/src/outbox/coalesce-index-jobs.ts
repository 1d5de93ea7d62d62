import { MEMORY_INDEX_BATCH_MAX, type JobName, type JobPayload } from '../job-definitions';
import { outboxJobId, type QueuedJob } from '../job-queue.port';
import type { OutboxRow } from './outbox.repository';

/** The job a memory write records, and the job the relay folds them into. */
export const INDEX_JOB = 'memory.index' satisfies JobName;
export const INDEX_BATCH_JOB = 'memory.index-batch' satisfies JobName;

export interface RelayedJob {
  readonly row: OutboxRow;
  readonly job: QueuedJob;
}

/**
 * Folds a pass's `memory.index` jobs into `memory.index-batch` jobs of at most
 * MEMORY_INDEX_BATCH_MAX memories, so the worker embeds a backlog in few model calls instead of one
 * call per memory. Other jobs pass through unchanged.
 *
 * The rows stay in id order; a memory queued twice in one pass appears once (the job reads the
 * memory's current text anyway). A batch's id comes from its first and last row: if the relay dies
 * after the add and before marking the rows, the next pass re-adds them, possibly grouped
 * differently; the index job is idempotent, so a second run only finds them indexed.
 */
export function coalesceIndexJobs(installationId: string, relayed: readonly RelayedJob[]): QueuedJob[] {
  const jobs: QueuedJob[] = [];
  let chunk: RelayedJob[] = [];
  const flush = () => {
    if (chunk.length > 0) jobs.push(indexBatchJob(installationId, chunk));
    chunk = [];
  };
  for (const item of relayed) {
    if (item.job.name !== INDEX_JOB) {
      jobs.push(item.job);
      continue;
    }
    chunk.push(item);
    if (chunk.length === MEMORY_INDEX_BATCH_MAX) flush();
  }
  flush();
  return jobs;
}

function indexBatchJob(
  installationId: string,
  chunk: readonly RelayedJob[],
): QueuedJob<'memory.index-batch'> {
  const latest = new Map<string, JobPayload<'memory.index'>>();
  for (const { job } of chunk) {
    const { tenantId, userId, memoryId, contentHash } = job.payload as JobPayload<'memory.index'>;
    latest.delete(memoryId);
    latest.set(memoryId, { tenantId, userId, memoryId, contentHash });
  }
  const first = chunk[0];
  return {
    name: INDEX_BATCH_JOB,
    jobId: `${outboxJobId(installationId, first.row)}-${chunk[chunk.length - 1].row.id}`,
    payload: { memories: [...latest.values()] },
    requestId: chunk.length === 1 ? first.job.requestId : undefined,
  };
}
