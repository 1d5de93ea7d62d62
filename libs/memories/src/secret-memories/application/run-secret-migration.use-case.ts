import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  AdminJobRepository,
  HandlesJob,
  isFinalAttempt,
  isFinished,
  runAdminJobAttempt,
  type AdminJob,
  type AdminJobProgress,
  type JobContext,
  type JobPayload,
} from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { type SystemActor } from '@app/tenancy';
import { SecretBatchRepository } from '../adapters/secret-batch.repository';
import { addCounts, SecretMigrator, type SecretMigrationCounts } from './secret-migrator';

export interface SecretMigrationOptions {
  /** Rows screened per transaction (progress is saved with each). */
  readonly batchSize: number;
}

export const SECRET_MIGRATION_OPTIONS = Symbol('SECRET_MIGRATION_OPTIONS');

export type SecretMigrationOutcome = 'succeeded' | 'failed' | 'already-finished' | 'job-missing';

interface Checkpoint {
  readonly afterId: string;
}

function checkpointOf(job: AdminJob): Checkpoint {
  const c = job.checkpoint as Partial<Checkpoint> | null;
  return { afterId: typeof c?.afterId === 'string' && /^\d+$/.test(c.afterId) ? c.afterId : '0' };
}

function countsOf(job: AdminJob): SecretMigrationCounts {
  const c = job.progress.counters ?? {};
  return {
    scanned: c.scanned ?? 0,
    found: c.found ?? 0,
    migrated: c.migrated ?? 0,
    failed: job.progress.failed,
  };
}

function progressOf(total: number | null, counts: SecretMigrationCounts): AdminJobProgress {
  return {
    total,
    done: counts.scanned,
    failed: counts.failed,
    counters: { scanned: counts.scanned, found: counts.found, migrated: counts.migrated },
  };
}

/**
 * `secrets.migrate`: screens every memory of the job's tenant that is not sensitive yet, batch by
 * batch in id order. Each batch runs in one transaction that also locks the job row, checks the
 * checkpoint is the one it started from, and saves the progress and the next checkpoint: a
 * re-delivered job resumes where the last committed batch ended, and two deliveries of the same
 * job never both process a batch. Rows migrated by anyone are sensitive and never selected again,
 * so a second job moves nothing twice.
 */
@Injectable()
export class RunSecretMigrationUseCase {
  readonly logger = new Logger('SecretMigration');

  constructor(
    @Inject(TransactionRunner) readonly tx: TransactionRunner,
    @Inject(AdminJobRepository) readonly jobs: AdminJobRepository,
    @Inject(SecretBatchRepository) private readonly batches: SecretBatchRepository,
    @Inject(SecretMigrator) private readonly migrator: SecretMigrator,
    @Inject(SECRET_MIGRATION_OPTIONS) private readonly options: SecretMigrationOptions,
  ) {}

  /** `secrets.migrate`: one tenant, resumable. */
  @HandlesJob('secrets.migrate')
  async onJob(payload: JobPayload<'secrets.migrate'>, job: JobContext): Promise<void> {
    await this.execute(payload, { finalAttempt: isFinalAttempt(job) });
  }

  async execute(
    payload: JobPayload<'secrets.migrate'>,
    options: { finalAttempt?: boolean } = {},
  ): Promise<SecretMigrationOutcome> {
    return runAdminJobAttempt(
      this,
      { id: payload.jobId, label: 'secret migration', finalAttempt: options.finalAttempt },
      () => this.run(payload),
    );
  }

  private async run(payload: JobPayload<'secrets.migrate'>): Promise<SecretMigrationOutcome> {
    const job = await this.tx.asSystem(async (tx) => {
      const found = await this.jobs.lock(tx, payload.jobId);
      if (!found || isFinished(found)) return found;
      const total =
        found.progress.total ?? (await this.batches.countUnscreened(tx, { tenantId: found.tenantId }));
      await this.jobs.markRunning(tx, found.id, total);
      return { ...found, progress: { ...found.progress, total } };
    });
    if (!job) return 'job-missing';
    if (isFinished(job)) return 'already-finished';
    const actor: SystemActor = {
      kind: 'system',
      via: 'worker',
      tenantId: job.tenantId,
      tenantSlug: '',
      requestId: payload.requestId,
    };

    for (;;) {
      const step = await this.tx.asSystem(async (tx) => {
        const current = await this.jobs.lock(tx, job.id);
        if (!current || isFinished(current)) return { done: true as const };
        const from = checkpointOf(current);
        const { counts, lastId } = await this.migrator.migrateBatch(tx, {
          tenantId: job.tenantId,
          afterId: from.afterId,
          limit: this.options.batchSize,
          dryRun: payload.dryRun,
          actor,
        });
        const total = addCounts(countsOf(current), counts);
        if (lastId === null) {
          await this.jobs.saveProgress(tx, job.id, progressOf(current.progress.total, total), from);
          await this.jobs.finish(tx, job.id, {
            status: total.failed > 0 ? 'failed' : 'succeeded',
            error:
              total.failed > 0
                ? `${total.failed} secrets could not be stored; their memories were left as they were. Run the migration again to retry them.`
                : null,
          });
          return {
            done: true as const,
            outcome: total.failed > 0 ? ('failed' as const) : ('succeeded' as const),
          };
        }
        await this.jobs.saveProgress(tx, job.id, progressOf(current.progress.total, total), {
          afterId: lastId,
        });
        return { done: false as const };
      });
      if (step.done) {
        if (!('outcome' in step) || step.outcome === undefined) return 'already-finished';
        this.logger.log(`secret migration job ${job.id} ${step.outcome}`);
        return step.outcome;
      }
    }
  }
}
