import { OutboxWriter } from '@app/jobs';
import { AdminJobRepository } from '@app/jobs';
import { GetAdminJobUseCase } from '@app/jobs';
import { type TransactionRunner } from '@app/persistence';
import { AuditWriter } from '@app/tenancy';
import { StartSecretMigrationUseCase } from './application/start-secret-migration.use-case';

export interface SecretMigrationUseCases {
  readonly start: StartSecretMigrationUseCase;
  readonly getJob: GetAdminJobUseCase;
}

/** The migration's producer side without a Nest container, for the CLI (same use cases as the admin route). */
export function createSecretMigrationUseCases(tx: TransactionRunner): SecretMigrationUseCases {
  const jobs = new AdminJobRepository();
  return {
    start: new StartSecretMigrationUseCase(tx, jobs, new OutboxWriter(), new AuditWriter()),
    getJob: new GetAdminJobUseCase(tx, jobs),
  };
}
