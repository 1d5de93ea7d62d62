import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { OutboxWriter } from '@app/jobs';
import { AuditWriter } from '@app/tenancy';
import { IdempotencyRepository } from './adapters/idempotency.repository';
import { MemoryTextSearchRepository } from './adapters/memory-text-search.repository';
import { VectorRecallAdapter } from './adapters/vector-recall.adapter';
import { CheckMemoryUseCase } from './application/check-memory.use-case';
import { CountMemoriesUseCase } from './application/count-memories.use-case';
import { StartupContextUseCase } from './application/startup-context.use-case';
import { StartupContextRepository } from './adapters/startup-context.repository';
import { FindDuplicatesUseCase } from './application/find-duplicates.use-case';
import { RecallMemoriesUseCase } from './application/recall-memories.use-case';
import { EmbeddingModelsModule } from './embedding-models.module';
import { VECTOR_RECALL } from './ports/vector-recall.port';
import { MemoryRepository } from './adapters/memory.repository';
import { BulkDeleteMemoriesUseCase } from './application/bulk-delete-memories.use-case';
import { CreateMemoryUseCase } from './application/create-memory.use-case';
import { DeleteMemoryUseCase } from './application/delete-memory.use-case';
import { GetMemoryUseCase } from './application/get-memory.use-case';
import { ImportMemoriesUseCase } from './application/import-memories.use-case';
import { ListMemoriesUseCase } from './application/list-memories.use-case';
import { MEMORY_LIMITS } from './application/memory-limits';
import { MemoryWriter } from './application/memory-writer';
import { PurgeMemoryUseCase } from './application/purge-memory.use-case';
import { RestoreMemoryUseCase } from './application/restore-memory.use-case';
import { UpdateMemoryUseCase } from './application/update-memory.use-case';
import { SyncModule } from './sync.module';
import { AdminJobRepository } from '@app/jobs/admin-jobs/admin-job.repository';
import { SecretCleanupRepository } from './adapters/secret-cleanup.repository';
import { MigrateOwnSecretsUseCase } from './application/migrate-own-secrets.use-case';
import { RevealSecretUseCase } from './application/reveal-secret.use-case';
import {
  RunSecretMigrationUseCase,
  SECRET_MIGRATION_OPTIONS,
} from './application/run-secret-migration.use-case';
import { SecretMigrator } from './application/secret-migrator';
import { SecretScreen } from './application/secret-screen';
import { SecretStaging } from './application/secret-staging';
import { StartSecretMigrationUseCase } from './application/start-secret-migration.use-case';
import { SweepSecretsUseCase } from './application/sweep-secrets.use-case';

const USE_CASES = [
  CreateMemoryUseCase,
  ListMemoriesUseCase,
  GetMemoryUseCase,
  UpdateMemoryUseCase,
  DeleteMemoryUseCase,
  RestoreMemoryUseCase,
  PurgeMemoryUseCase,
  BulkDeleteMemoriesUseCase,
  ImportMemoriesUseCase,
  RecallMemoriesUseCase,
  CheckMemoryUseCase,
  FindDuplicatesUseCase,
  CountMemoriesUseCase,
  StartupContextUseCase,
  RevealSecretUseCase,
  MigrateOwnSecretsUseCase,
  StartSecretMigrationUseCase,
  RunSecretMigrationUseCase,
  SweepSecretsUseCase,
];

@Module({
  imports: [EmbeddingModelsModule, SyncModule],
  providers: [
    MemoryTextSearchRepository,
    StartupContextRepository,
    VectorRecallAdapter,
    { provide: VECTOR_RECALL, useExisting: VectorRecallAdapter },
    MemoryRepository,
    IdempotencyRepository,
    MemoryWriter,
    SecretScreen,
    SecretStaging,
    SecretCleanupRepository,
    SecretMigrator,
    AdminJobRepository,
    {
      provide: SECRET_MIGRATION_OPTIONS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ batchSize: config.secrets.migrationBatchSize }),
    },
    { provide: OutboxWriter, useClass: OutboxWriter },
    { provide: AuditWriter, useClass: AuditWriter },
    {
      provide: MEMORY_LIMITS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => config.limits,
    },
    ...USE_CASES,
  ],
  exports: [...USE_CASES, SyncModule],
})
export class MemoriesModule {}
