import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  AdminJobRepository,
  HandlesJob,
  isFinalAttempt,
  isFinished,
  runAdminJobAttempt,
  type JobContext,
  type JobPayload,
} from '@app/jobs';
import { TransactionRunner, type TenantScope } from '@app/persistence';
import { SessionImportRepository } from '../adapters/session-import.repository';

/** Events marked per transaction; progress is saved with each. */
export const IMPORTED_EVENTS_PER_STEP = 500;

export type ImportProcessingOutcome = 'succeeded' | 'already-finished' | 'job-missing';

/**
 * `sessions.import`: the background half of a transcript import, run as the session's user. It
 * processes the imported events batch by batch (today: marks them processed, as `sessions.process`
 * does for captured events), recording done/total in the job's `jobs` row so its creator can follow
 * it at `GET /api/jobs/{id}`. Re-deliveries resume: each step takes what is still unprocessed under
 * the job row's lock. Candidate-memory extraction is not started here: it follows the session's
 * end, which the import goes through before queueing this job.
 */
@Injectable()
export class ProcessImportedSessionUseCase {
  readonly logger = new Logger('SessionImport');

  constructor(
    @Inject(TransactionRunner) readonly tx: TransactionRunner,
    @Inject(AdminJobRepository) readonly jobs: AdminJobRepository,
    @Inject(SessionImportRepository) private readonly imports: SessionImportRepository,
  ) {}

  @HandlesJob('sessions.import')
  async onJob(payload: JobPayload<'sessions.import'>, job: JobContext): Promise<void> {
    await this.execute(payload, { finalAttempt: isFinalAttempt(job) });
  }

  async execute(
    payload: JobPayload<'sessions.import'>,
    options: { finalAttempt?: boolean } = {},
  ): Promise<ImportProcessingOutcome> {
    return runAdminJobAttempt(
      this,
      { id: payload.jobId, label: 'session import', finalAttempt: options.finalAttempt },
      () => this.run(payload),
    );
  }

  private async run(payload: JobPayload<'sessions.import'>): Promise<ImportProcessingOutcome> {
    const scope: TenantScope = { tenantId: payload.tenantId, userId: payload.userId };
    const { sessionId, jobId } = payload;
    const started = await this.tx.inTenant(scope, async (tx) => {
      const job = await this.jobs.lock(tx, jobId);
      if (!job || isFinished(job)) return job;
      const total = job.progress.total ?? (await this.imports.countUnprocessed(scope, tx, sessionId));
      await this.jobs.markRunning(tx, jobId, total);
      return job;
    });
    if (!started) return 'job-missing';
    if (isFinished(started)) return 'already-finished';

    for (;;) {
      const step = await this.tx.inTenant(scope, async (tx) => {
        const job = await this.jobs.lock(tx, jobId);
        if (!job || isFinished(job)) return 'already-finished' as const;
        const marked = await this.imports.markProcessedBatch(scope, tx, sessionId, IMPORTED_EVENTS_PER_STEP);
        const total = job.progress.total ?? 0;
        if (marked === 0) {
          // Every event of the session is processed now, whoever marked the last ones.
          await this.jobs.saveProgress(tx, jobId, { total, done: total, failed: 0 }, null);
          await this.jobs.finish(tx, jobId, { status: 'succeeded', error: null });
          return 'succeeded' as const;
        }
        const done = Math.min(total, job.progress.done + marked);
        await this.jobs.saveProgress(tx, jobId, { total, done, failed: 0 }, null);
        return null;
      });
      if (step !== null) {
        if (step === 'succeeded') this.logger.log(`session import job ${jobId} succeeded`);
        return step;
      }
    }
  }
}
