import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { TransactionRunner } from '@app/persistence';
import { assertAdmin, decodeCursor, tenantScopeOf, toPage, type Actor, type Page } from '@app/tenancy';
import type { JobName } from '../job-definitions';
import {
  JOB_INSPECTOR,
  QUEUE_JOB_STATES,
  TENANT_JOB_NAMES,
  type JobInspector,
  type QueueJob,
  type QueueJobState,
} from '../job-inspector.port';
import type { JobView } from './admin-job-view';
import { AdminJobRepository } from './admin-job.repository';

export interface ListAdminJobsInput {
  readonly state?: QueueJobState;
  readonly name?: JobName;
  readonly cursor?: string;
  readonly limit: number;
}

const cursorSchema = z.tuple([z.number().int().nonnegative(), z.string().max(200)]);

/** Newest first, then by id: the order pages follow. */
const newestFirst = (a: QueueJob, b: QueueJob) =>
  b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * The queue's jobs of the actor's tenant (system jobs never show), newest first, with the progress
 * of the resumable ones from their `jobs` rows. The queue keeps finished jobs for a while only (see
 * the job policies), so this is recent history, not a full record: the audit log is that.
 */
@Injectable()
export class ListAdminJobsUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(AdminJobRepository) private readonly jobs: AdminJobRepository,
    @Inject(JOB_INSPECTOR) private readonly inspector: JobInspector,
  ) {}

  async execute(actor: Actor, input: ListAdminJobsInput): Promise<Page<JobView>> {
    assertAdmin(actor);
    const after = input.cursor === undefined ? null : decodeCursor(cursorSchema, input.cursor);
    const scope = tenantScopeOf(actor);
    const found = await this.inspector.list(scope.tenantId, {
      names: input.name ? [input.name] : TENANT_JOB_NAMES,
      states: input.state ? [input.state] : QUEUE_JOB_STATES,
    });
    const sorted = found
      .filter(
        (job) => !after || job.createdAt < after[0] || (job.createdAt === after[0] && job.id < after[1]),
      )
      .sort(newestFirst)
      .slice(0, input.limit + 1);
    const trackedIds = sorted.flatMap((job) => (job.trackedJobId ? [job.trackedJobId] : []));
    const tracked = await this.tx.inTenant(scope, (tx) => this.jobs.findMany(scope, tx, trackedIds));
    const rows = new Map(tracked.map((row) => [row.id, row]));
    return toPage(
      sorted,
      input.limit,
      (job): JobView => ({
        id: job.id,
        name: job.name,
        queued: job,
        tracked: job.trackedJobId ? (rows.get(job.trackedJobId) ?? null) : null,
      }),
      (job) => [job.createdAt, job.id],
    );
  }
}
