import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { assertAdmin, tenantScopeOf, type Actor } from '@app/tenancy';
import type { AdminJob } from './admin-job';
import { AdminJobError } from './admin-job.errors';
import { AdminJobRepository } from './admin-job.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A job of the actor's own tenant; anything else (another tenant's, malformed id) is not found. */
@Injectable()
export class GetAdminJobUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(AdminJobRepository) private readonly jobs: AdminJobRepository,
  ) {}

  async execute(actor: Actor, jobId: string): Promise<AdminJob> {
    assertAdmin(actor);
    if (!UUID.test(jobId)) throw AdminJobError.notFound(jobId);
    const scope = tenantScopeOf(actor);
    const job = await this.tx.inTenant(scope, (tx) => this.jobs.find(scope, tx, jobId));
    if (!job) throw AdminJobError.notFound(jobId);
    return job;
  }
}
