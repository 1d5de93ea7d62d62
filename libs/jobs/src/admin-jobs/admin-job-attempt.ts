import type { Logger } from '@nestjs/common';
import { type TransactionRunner } from '@app/persistence';
import { isFinished } from './admin-job';
import type { AdminJobRepository } from './admin-job.repository';

/**
 * Runs one delivery of a resumable admin job. Retries resume from the job's checkpoint, so only
 * the final attempt marks the `jobs` row failed (with `label` and the error); the error is
 * rethrown either way so the queue records it.
 */
export async function runAdminJobAttempt<T>(
  context: { tx: TransactionRunner; jobs: AdminJobRepository; logger: Logger },
  job: { id: string; label: string; finalAttempt?: boolean },
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (job.finalAttempt) await failAdminJob(context, job.id, `${job.label} failed: ${errorText(error)}`);
    throw error;
  }
}

/** Marks an unfinished job failed; a failure to record it is logged, not thrown. */
export async function failAdminJob(
  context: { tx: TransactionRunner; jobs: AdminJobRepository; logger: Logger },
  jobId: string,
  error: string,
): Promise<void> {
  await context.tx
    .asSystem(async (tx) => {
      const job = await context.jobs.lock(tx, jobId);
      if (job && !isFinished(job)) await context.jobs.finish(tx, jobId, { status: 'failed', error });
    })
    .catch((recordError: unknown) =>
      context.logger.warn(`could not record the failure of job ${jobId}: ${errorText(recordError)}`),
    );
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
