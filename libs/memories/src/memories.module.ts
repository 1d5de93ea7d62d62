import { Module } from '@nestjs/common';
import { MemoriesCoreModule } from './application/memories-core.module';
import { MemoryCodeModule } from './code/memory-code.module';
import { MemoryExportModule } from './export/memory-export.module';
import { MemoryLinksModule } from './links/memory-links.module';
import { MemoryPinsModule } from './pins/memory-pins.module';
import { MemoryProjectionModule } from './projection/memory-projection.module';
import { MemoryReviewModule } from './review/memory-review.module';
import { SecretMemoriesModule } from './secret-memories/secret-memories.module';
import { MemorySharingModule } from './sharing/memory-sharing.module';
import { MemoryStatsModule } from './stats/memory-stats.module';
import { MemoryVersionsModule } from './versions/memory-versions.module';

const PARTS = [
  MemoriesCoreModule,
  MemorySharingModule,
  MemoryLinksModule,
  SecretMemoriesModule,
  MemoryExportModule,
  MemoryStatsModule,
  MemoryVersionsModule,
  MemoryPinsModule,
  MemoryReviewModule,
  MemoryProjectionModule,
  MemoryCodeModule,
];

/**
 * The memory aggregate as one import: the core (domain, read model, the one write path and the
 * CRUD use cases) and its wings (sharing, links, secret memories, export, stats, versions, pins, review, projection, code), each
 * its own module that imports only the core. Exports every part's use cases, `MemoryLookup` (how other
 * contexts read memories with their links) and `MEMORY_LIMITS`.
 * Needs the global PersistenceModule and ConfigModule.
 */
@Module({ imports: PARTS, exports: PARTS })
export class MemoriesModule {}
