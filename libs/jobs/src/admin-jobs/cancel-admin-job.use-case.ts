import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, isSystemActor, tenantScopeOf, type Actor } from '@app/tenancy';
import { JOB_INSPECTOR, type JobInspector } from '../job-inspector.port';
import { isFinished } from './admin-job';
import { AdminJobLookup } from './admin-job-lookup';
import type { JobView } from './admin-job-view';
import { AdminJobError, AdminJobErrorCode } from './admin-job.errors';
import { AdminJobRepository } from './admin-job.repository';

/**
 * Drops a job of the actor's tenant that has not started (waiting, or delayed before a retry). A
 * running job cannot be stopped from outside its worker, and a finished one has nothing to cancel.
 * A resumable job's `jobs` row is marked failed with the reason.
 */
@Injectable()
export class CancelAdminJobUseCase {
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
    if (!queued || (queued.state !== 'waiting' && queued.state !== 'delayed')) {
      const where = queued ? `is ${queued.state}` : 'is no longer held by the queue';
      throw new AdminJobError(
        AdminJobErrorCode.NotCancellable,
        `Job ${jobId} ${where}; only waiting or delayed jobs can be cancelled`,
      );
    }
    await this.inspector.cancel(queued);
    const by = isSystemActor(actor) ? `an operator (${actor.via})` : actor.username;
    const scope = tenantScopeOf(actor);
    const tracked = await this.tx.inTenant(scope, async (tx) => {
      if (view.tracked && !isFinished(view.tracked)) {
        await this.jobs.finish(tx, view.tracked.id, { status: 'failed', error: `cancelled by ${by}` });
      }
      await this.audit.record(actor, tx, {
        action: 'job.cancel',
        targetType: 'job',
        targetId: jobId,
        details: { name: view.name, queue_job_id: queued.id, state: queued.state },
      });
      return view.tracked ? this.jobs.find(scope, tx, view.tracked.id) : null;
    });
    return { ...view, tracked, cancelled: true };
  }
}
