import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { JobsModule } from '@app/jobs';
import { SecretsModule } from '@app/secrets';
import { TenancyModule } from '@app/tenancy';
import { MemoryReadModelModule } from '../read-model/memory-read-model.module';
import { IdempotencyRepository } from './idempotency.repository';
import { MemoryIndexRequestRepository } from './memory-index-request.repository';
import { MemoryIndexing } from './memory-indexing';
import { MemoryLifecycle } from './memory-lifecycle';
import { MEMORY_DEFAULTS, MEMORY_LIMITS } from './memory-limits';
import { MemoryLinkRepository } from './memory-link.repository';
import { MemoryLinkWriter } from './memory-link-writer';
import { MemoryUpdate } from './memory-update';
import { MemoryVersionWriteRepository } from './memory-version-write.repository';
import { AnchorWriteRepository } from './anchor-write.repository';
import { MemoryWriteRepository } from './memory-write.repository';
import { MemoryWriter } from './memory-writer';
import { NewMemoryRows } from './new-memory-rows';
import { SecretCleanupRepository } from './secret-cleanup.repository';
import { SecretScreen } from './secret-screen';
import { SecretStaging } from './secret-staging';
import { SweepSecretsUseCase } from './sweep-secrets.use-case';
import { TeamDuplicateProbeSlot } from './team-duplicates.port';

/**
 * The core's write side: `MemoryWriter` (screening, secret staging, the idempotency claim, rows,
 * links, index/outbox/audit bookkeeping), the row statements the state changes use (delete,
 * restore, purge, expiry), the link rules, the version rows a change keeps, and the sweep of
 * secrets staged for rows that never committed. Re-exports the read model. Exports `MemoryUpdate`
 * for the versions wing's restore. Needs the global PersistenceModule and ConfigModule.
 */
@Module({
  imports: [JobsModule, TenancyModule, SecretsModule, MemoryReadModelModule],
  providers: [
    MemoryWriter,
    NewMemoryRows,
    MemoryUpdate,
    MemoryLifecycle,
    MemoryIndexing,
    MemoryWriteRepository,
    MemoryIndexRequestRepository,
    IdempotencyRepository,
    SecretScreen,
    SecretStaging,
    SecretCleanupRepository,
    SweepSecretsUseCase,
    MemoryLinkRepository,
    MemoryLinkWriter,
    MemoryVersionWriteRepository,
    AnchorWriteRepository,
    TeamDuplicateProbeSlot,
    { provide: MEMORY_LIMITS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => config.limits },
    { provide: MEMORY_DEFAULTS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => config.memories },
  ],
  exports: [
    MemoryReadModelModule,
    MemoryWriter,
    MemoryWriteRepository,
    SecretScreen,
    SweepSecretsUseCase,
    MemoryLinkRepository,
    MemoryLinkWriter,
    MemoryUpdate,
    MemoryVersionWriteRepository,
    AnchorWriteRepository,
    MEMORY_LIMITS,
    TeamDuplicateProbeSlot,
  ],
})
export class MemoryWriteModule {}
