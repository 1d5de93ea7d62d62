import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { assertAdmin, tenantScopeOf, type Actor } from '@app/tenancy';
import type { JobName } from '../job-definitions';
import {
  JOB_INSPECTOR,
  QUEUE_JOB_STATES,
  TENANT_JOB_NAMES,
  type JobInspector,
  type QueueJob,
} from '../job-inspector.port';
import type { JobView } from './admin-job-view';
import { AdminJobError } from './admin-job.errors';
import { AdminJobRepository } from './admin-job.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Queue job ids as the relay and scheduler make them (BullMQ forbids ':'). */
const QUEUE_ID = /^[A-Za-z0-9._-]{1,200}$/;

/**
 * Finds a job of the actor's tenant by either id: a `jobs` row (uuid) with the queue job that runs
 * it, or a queue job with the row it reports to. Another tenant's job, a system job and an
 * unknown id are all not found.
 */
@Injectable()
export class AdminJobLookup {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(AdminJobRepository) private readonly jobs: AdminJobRepository,
    @Inject(JOB_INSPECTOR) private readonly inspector: JobInspector,
  ) {}

  async find(actor: Actor, id: string): Promise<JobView> {
    assertAdmin(actor);
    const scope = tenantScopeOf(actor);
    if (UUID.test(id)) {
      const tracked = await this.tx.inTenant(scope, (tx) => this.jobs.find(scope, tx, id));
      if (tracked)
        return { id, name: tracked.kind, tracked, queued: await this.queuedFor(scope.tenantId, tracked) };
    }
    if (!QUEUE_ID.test(id)) throw AdminJobError.notFound(id);
    const queued = await this.inspector.find(id, TENANT_JOB_NAMES);
    if (!queued || queued.tenantId !== scope.tenantId) throw AdminJobError.notFound(id);
    const tracked = queued.trackedJobId
      ? await this.tx.inTenant(scope, (tx) => this.jobs.find(scope, tx, queued.trackedJobId as string))
      : null;
    return { id, name: queued.name, tracked, queued };
  }

  /** The newest queue job carrying a `jobs` row (a re-run after a retry replaces none: BullMQ keeps one per id). */
  private async queuedFor(tenantId: string, tracked: { id: string; kind: string }): Promise<QueueJob | null> {
    if (!(TENANT_JOB_NAMES as readonly string[]).includes(tracked.kind)) return null;
    const jobs = await this.inspector.list(tenantId, {
      names: [tracked.kind as JobName],
      states: QUEUE_JOB_STATES,
    });
    const carrying = jobs.filter((job) => job.trackedJobId === tracked.id);
    return carrying.sort((a, b) => b.createdAt - a.createdAt)[0] ?? null;
  }
}
