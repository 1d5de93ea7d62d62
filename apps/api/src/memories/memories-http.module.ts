import { MemoryReviewController } from './memory-review.controller';
import { Module } from '@nestjs/common';
import { MemoriesModule } from '@app/memories';
import { RecallModule } from '@app/recall';
import { SecretsModule } from '@app/secrets';
import { SyncModule } from '@app/sync';
import { CodeEventsController } from './code-events.controller';
import { MemoriesController } from './memories.controller';
import { MemoryExportController } from './memory-export.controller';
import { MemoryLinksController } from './memory-links.controller';
import { MemoryPinsController } from './memory-pins.controller';
import { MemorySearchController } from './memory-search.controller';
import { MemorySyncController } from './memory-sync.controller';
import { MemorySecretsController } from './memory-secrets.controller';
import { MemorySharesController } from './memory-shares.controller';
import { MemoryStatsController } from './memory-stats.controller';
import { MemoryVersionsController } from './memory-versions.controller';
import { ProjectContextController } from './project-context.controller';

@Module({
  imports: [MemoriesModule, RecallModule, SecretsModule, SyncModule],
  controllers: [
    MemorySearchController,
    MemorySyncController,
    MemoryExportController,
    MemorySecretsController,
    MemorySharesController,
    MemoriesController,
    MemoryLinksController,
    MemoryStatsController,
    MemoryVersionsController,
    MemoryPinsController,
    MemoryReviewController,
    ProjectContextController,
    CodeEventsController,
  ],
})
export class MemoriesHttpModule {}
