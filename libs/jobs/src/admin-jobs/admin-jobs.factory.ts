import { type TransactionRunner } from '@app/persistence';
import { AuditWriter } from '@app/tenancy';
import type { JobInspector } from '../job-inspector.port';
import { AdminJobLookup } from './admin-job-lookup';
import { AdminJobRepository } from './admin-job.repository';
import { CancelAdminJobUseCase } from './cancel-admin-job.use-case';
import { GetAdminJobUseCase } from './get-admin-job.use-case';
import { ListAdminJobsUseCase } from './list-admin-jobs.use-case';
import { RetryAdminJobUseCase } from './retry-admin-job.use-case';
import { ShowAdminJobUseCase } from './show-admin-job.use-case';

export interface AdminJobUseCases {
  readonly list: ListAdminJobsUseCase;
  readonly show: ShowAdminJobUseCase;
  readonly retry: RetryAdminJobUseCase;
  readonly cancel: CancelAdminJobUseCase;
  /** The `jobs` row alone (progress of a resumable job). */
  readonly tracked: GetAdminJobUseCase;
}

/** The admin job use cases without a Nest container, for the CLI (same wiring as JobsModule). */
export function createAdminJobUseCases(tx: TransactionRunner, inspector: JobInspector): AdminJobUseCases {
  const jobs = new AdminJobRepository();
  const audit = new AuditWriter();
  const lookup = new AdminJobLookup(tx, jobs, inspector);
  return {
    list: new ListAdminJobsUseCase(tx, jobs, inspector),
    show: new ShowAdminJobUseCase(lookup),
    retry: new RetryAdminJobUseCase(tx, lookup, jobs, inspector, audit),
    cancel: new CancelAdminJobUseCase(tx, lookup, jobs, inspector, audit),
    tracked: new GetAdminJobUseCase(tx, jobs),
  };
}
