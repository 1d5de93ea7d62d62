import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, tenantScopeOf, type Actor } from '@app/tenancy';
import { JOB_INSPECTOR, type JobInspector } from '../job-inspector.port';
import { AdminJobLookup } from './admin-job-lookup';
import type { JobView } from './admin-job-view';
import { AdminJobError, AdminJobErrorCode } from './admin-job.errors';
import { AdminJobRepository } from './admin-job.repository';

/**
 * Puts a failed job of the actor's tenant back on the queue with its attempts reset. A resumable
 * job's `jobs` row is reopened first, so the new run continues from its checkpoint.
 */
@Injectable()
export class RetryAdminJobUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(AdminJobLookup) private readonly lookup: AdminJobLookup,
    @Inject(AdminJobRepository) private readonly jobs: AdminJobRepository,
    @Inject(JOB_INSPECTOR) private readonly inspector: JobInspector,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(actor: Actor, jobId: string): Promise<JobView> {
    const view = await this.lookup.find(actor, jobId);
    const queued = view.queued;
    if (!queued || queued.state !== 'failed') {
      const where = queued ? `is ${queued.state}` : 'is no longer held by the queue';
      throw new AdminJobError(
        AdminJobErrorCode.NotFailed,
        `Job ${jobId} ${where}; only failed jobs can be retried`,
      );
    }
    const scope = tenantScopeOf(actor);
    await this.tx.inTenant(scope, async (tx) => {
      if (view.tracked) await this.jobs.reopen(scope, tx, view.tracked.id);
      await this.audit.record(actor, tx, {
        action: 'job.retry',
        targetType: 'job',
        targetId: jobId,
        details: {
          name: view.name,
          queue_job_id: queued.id,
          attempts: queued.attemptsMade,
          error: queued.error,
        },
      });
    });
    await this.inspector.retry(queued);
    return this.lookup.find(actor, jobId);
  }
}
