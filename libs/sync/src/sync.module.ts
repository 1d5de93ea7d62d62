import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { MemorySyncRepository } from './adapters/memory-sync.repository';
import { SyncFeedRepository } from './adapters/sync-feed.repository';
import { SyncRetentionRepository } from './adapters/sync-retention.repository';
import { SyncCursorCodecProvider } from './application/sync-cursor-codec.provider';
import { SyncMemoryChangesUseCase } from './application/sync-memory-changes.use-case';
import { SyncPurgeTombstonesUseCase } from './application/sync-purge-tombstones.use-case';
import { SyncSeedDumpUseCase } from './application/sync-seed-dump.use-case';
import { SYNC_SETTINGS, type SyncSettings } from './domain/sync';

const USE_CASES = [SyncMemoryChangesUseCase, SyncSeedDumpUseCase, SyncPurgeTombstonesUseCase];

/**
 * Incremental sync reads (API) and deletion-history retention (the scheduled `sync.purge-tombstones`
 * job). Needs the global PersistenceModule (ServerSecretRepository signs cursors).
 */
@Module({
  providers: [
    MemorySyncRepository,
    SyncFeedRepository,
    SyncRetentionRepository,
    SyncCursorCodecProvider,
    {
      provide: SYNC_SETTINGS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): SyncSettings => ({
        pageDefault: config.sync.pageDefault,
        pageMax: config.sync.pageMax,
        tombstoneRetentionDays: config.sync.tombstoneRetentionDays,
        sinceOverlapMs: config.sync.sinceOverlapMs,
      }),
    },
    ...USE_CASES,
  ],
  exports: USE_CASES,
})
export class SyncModule {}
