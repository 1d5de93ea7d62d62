import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { hasScope, type Principal } from '@app/tenancy';
import type { AdminJob } from './admin-job';
import { AdminJobError } from './admin-job.errors';
import { AdminJobRepository } from './admin-job.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `GET /api/jobs/{id}`: a job the caller started (an import, with any key), or any job of the
 * tenant for an admin. Someone else's job, another tenant's and a malformed id are all not found.
 */
@Injectable()
export class GetJobUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(AdminJobRepository) private readonly jobs: AdminJobRepository,
  ) {}

  async execute(principal: Principal, jobId: string): Promise<AdminJob> {
    if (!UUID.test(jobId)) throw AdminJobError.notFound(jobId);
    const job = await this.tx.inTenant(principal, (tx) => this.jobs.find(principal, tx, jobId));
    if (!job || (job.createdBy !== principal.userId && !hasScope(principal, 'admin'))) {
      throw AdminJobError.notFound(jobId);
    }
    return job;
  }
}
