import { Module } from '@nestjs/common';
import { MemoriesModule } from '@app/memories';
import { RecallModule } from '@app/recall';
import { SyncModule } from '@app/sync';
import { MemoriesController } from './memories.controller';
import { MemoryExportController } from './memory-export.controller';
import { MemoryLinksController } from './memory-links.controller';
import { MemorySearchController } from './memory-search.controller';
import { MemorySyncController } from './memory-sync.controller';
import { MemorySecretsController } from './memory-secrets.controller';
import { MemorySharesController } from './memory-shares.controller';
import { MemoryStatsController } from './memory-stats.controller';

@Module({
  imports: [MemoriesModule, RecallModule, SyncModule],
  controllers: [
    MemorySearchController,
    MemorySyncController,
    MemoryExportController,
    MemorySecretsController,
    MemorySharesController,
    MemoriesController,
    MemoryLinksController,
    MemoryStatsController,
  ],
})
export class MemoriesHttpModule {}
