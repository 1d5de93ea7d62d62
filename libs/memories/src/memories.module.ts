import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { JobsModule } from '@app/jobs';
import { SecretsModule } from '@app/secrets';
import { TenancyModule } from '@app/tenancy';
import { IdempotencyRepository } from './adapters/idempotency.repository';
import { MemoryIndexRequestRepository } from './adapters/memory-index-request.repository';
import { MemoryRepository } from './adapters/memory.repository';
import { MemoryUsageRepository } from './adapters/memory-usage.repository';
import { TextStatisticsRepository } from './adapters/text-statistics.repository';
import { UserDataRepository } from './adapters/user-data.repository';
import { BulkDeleteMemoriesUseCase } from './application/bulk-delete-memories.use-case';
import { CountMemoriesUseCase } from './application/count-memories.use-case';
import { CreateMemoryUseCase } from './application/create-memory.use-case';
import { DeleteMemoryUseCase } from './application/delete-memory.use-case';
import { EraseUserDataUseCase } from './application/erase-user-data.use-case';
import { DeleteUserUseCase } from './application/delete-user.use-case';
import { MemoryStatsRepository } from './stats/adapters/memory-stats.repository';
import {
  GetMemoryActivityUseCase,
  GetMemoryStatsUseCase,
  ListMemoryFacetsUseCase,
} from './stats/application/get-memory-stats.use-case';
import { ExpireMemoriesUseCase } from './application/expire-memories.use-case';
import { FoldMemoryUsageUseCase } from './application/fold-memory-usage.use-case';
import { FoldTextStatisticsUseCase } from './application/fold-text-statistics.use-case';
import { GetMemoryUseCase } from './application/get-memory.use-case';
import { ImportMemoriesUseCase } from './application/import-memories.use-case';
import { ListMemoriesUseCase } from './application/list-memories.use-case';
import { MEMORY_DEFAULTS, MEMORY_LIMITS } from './application/memory-limits';
import { MemoryWriter } from './application/memory-writer';
import { PurgeMemoryUseCase } from './application/purge-memory.use-case';
import { RestoreMemoryUseCase } from './application/restore-memory.use-case';
import { UpdateMemoryUseCase } from './application/update-memory.use-case';
import { MemoryLookup } from './ports/memory-lookup.port';
import { MemoryLinkRepository } from './links/adapters/memory-link.repository';
import { CreateMemoryLinkUseCase } from './links/application/create-memory-link.use-case';
import { DeleteMemoryLinkUseCase } from './links/application/delete-memory-link.use-case';
import { GetMemoryLinksUseCase } from './links/application/get-memory-links.use-case';
import { MemoryLinkWriter } from './links/application/memory-link-writer';
import { SecretBatchRepository } from './secret-memories/adapters/secret-batch.repository';
import { SecretCleanupRepository } from './secret-memories/adapters/secret-cleanup.repository';
import { MigrateOwnSecretsUseCase } from './secret-memories/application/migrate-own-secrets.use-case';
import { RevealSecretUseCase } from './secret-memories/application/reveal-secret.use-case';
import {
  RunSecretMigrationUseCase,
  SECRET_MIGRATION_OPTIONS,
} from './secret-memories/application/run-secret-migration.use-case';
import { SecretMigrator } from './secret-memories/application/secret-migrator';
import { SecretScreen } from './secret-memories/application/secret-screen';
import { SecretStaging } from './secret-memories/application/secret-staging';
import { StartSecretMigrationUseCase } from './secret-memories/application/start-secret-migration.use-case';
import { SweepSecretsUseCase } from './secret-memories/application/sweep-secrets.use-case';
import { ShareRepository } from './sharing/adapters/share.repository';
import { MemoryExportRepository } from './export/adapters/memory-export.repository';
import { ExportMemoriesUseCase } from './export/application/export-memories.use-case';
import { ListMySharesUseCase, ListSharedWithMeUseCase } from './sharing/application/list-shares.use-case';
import { ShareMemoryUseCase } from './sharing/application/share-memory.use-case';
import { ShareTagUseCase } from './sharing/application/share-tag.use-case';
import { UnshareMemoryUseCase } from './sharing/application/unshare-memory.use-case';
import { UnshareTagUseCase } from './sharing/application/unshare-tag.use-case';

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
  CountMemoriesUseCase,
  ExpireMemoriesUseCase,
  FoldTextStatisticsUseCase,
  FoldMemoryUsageUseCase,
  EraseUserDataUseCase,
  DeleteUserUseCase,
  ExportMemoriesUseCase,
  GetMemoryStatsUseCase,
  GetMemoryActivityUseCase,
  ListMemoryFacetsUseCase,
];

const SHARING_USE_CASES = [
  ShareMemoryUseCase,
  UnshareMemoryUseCase,
  ShareTagUseCase,
  UnshareTagUseCase,
  ListSharedWithMeUseCase,
  ListMySharesUseCase,
];

const LINK_USE_CASES = [CreateMemoryLinkUseCase, DeleteMemoryLinkUseCase, GetMemoryLinksUseCase];

const SECRET_MEMORY_USE_CASES = [
  RevealSecretUseCase,
  MigrateOwnSecretsUseCase,
  StartSecretMigrationUseCase,
  RunSecretMigrationUseCase,
  SweepSecretsUseCase,
];

/**
 * The memory aggregate: its use cases, the one write path (MemoryWriter), the sharing sub-context
 * (memory and tag shares), the links sub-context (typed edges between memories) and the
 * secret-memories sub-context (screen, stage, reveal, migrate, sweep; the last two are jobs
 * declared with @HandlesJob). Exports the use cases and the MemoryLookup port other contexts
 * read memories (with their links) through.
 * Needs the global PersistenceModule and ConfigModule.
 */
@Module({
  imports: [JobsModule, TenancyModule, SecretsModule],
  providers: [
    MemoryRepository,
    { provide: MemoryLookup, useExisting: MemoryRepository },
    MemoryIndexRequestRepository,
    TextStatisticsRepository,
    MemoryUsageRepository,
    UserDataRepository,
    IdempotencyRepository,
    MemoryWriter,
    MemoryLinkRepository,
    MemoryLinkWriter,
    SecretScreen,
    SecretStaging,
    SecretCleanupRepository,
    SecretBatchRepository,
    SecretMigrator,
    {
      provide: SECRET_MIGRATION_OPTIONS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ batchSize: config.secrets.migrationBatchSize }),
    },
    { provide: MEMORY_LIMITS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => config.limits },
    { provide: MEMORY_DEFAULTS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => config.memories },
    ShareRepository,
    MemoryExportRepository,
    MemoryStatsRepository,
    ...USE_CASES,
    ...SHARING_USE_CASES,
    ...LINK_USE_CASES,
    ...SECRET_MEMORY_USE_CASES,
  ],
  exports: [
    MemoryLookup,
    MEMORY_LIMITS,
    ...USE_CASES,
    ...SHARING_USE_CASES,
    ...LINK_USE_CASES,
    ...SECRET_MEMORY_USE_CASES,
  ],
})
export class MemoriesModule {}
