import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { JobsModule } from '@app/jobs';
import { SecretsModule } from '@app/secrets';
import { TenancyModule } from '@app/tenancy';
import { MemoryWriteModule } from '../write/memory-write.module';
import { SecretBatchRepository } from './adapters/secret-batch.repository';
import { MigrateOwnSecretsUseCase } from './application/migrate-own-secrets.use-case';
import { RevealSecretUseCase } from './application/reveal-secret.use-case';
import {
  RunSecretMigrationUseCase,
  SECRET_MIGRATION_OPTIONS,
} from './application/run-secret-migration.use-case';
import { SecretMigrator } from './application/secret-migrator';
import { StartSecretMigrationUseCase } from './application/start-secret-migration.use-case';

const USE_CASES = [
  RevealSecretUseCase,
  MigrateOwnSecretsUseCase,
  StartSecretMigrationUseCase,
  RunSecretMigrationUseCase,
];

/**
 * The secret-memories wing: reveal, and the migration of secrets already in rows into the secret
 * store (a job declared with @HandlesJob). Screening and staging belong to the core's writer.
 */
@Module({
  imports: [JobsModule, TenancyModule, SecretsModule, MemoryWriteModule],
  providers: [
    SecretBatchRepository,
    SecretMigrator,
    {
      provide: SECRET_MIGRATION_OPTIONS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ batchSize: config.secrets.migrationBatchSize }),
    },
    ...USE_CASES,
  ],
  exports: USE_CASES,
})
export class SecretMemoriesModule {}
