import { Module } from '@nestjs/common';
import { EmbeddingModelsModule } from '@app/memories/embedding-models.module';
import { MemoryIndexStateRepository } from '@app/memories/adapters/memory-index-state.repository';
import { EmbedMemoryStep } from '@app/memories/application/embed-memory.step';
import { IndexMemoryUseCase, MEMORY_INDEX_STEP } from '@app/memories/application/index-memory.use-case';
import { EmbeddingsReindexProcessor } from './embeddings-reindex.processor';
import { MemoryIndexProcessor } from './memory-index.processor';
import { SyncModule } from '@app/memories/sync.module';
import { MemoriesModule } from '@app/memories/memories.module';
import {
  SecretsCleanupProcessor,
  SecretsCleanupSchedule,
  SecretsMigrateProcessor,
} from './secrets.processors';
import { SyncPurgeTombstonesProcessor, SyncPurgeTombstonesSchedule } from './sync-purge-tombstones.processor';

/**
 * Every job handler. The worker imports it; the API imports it too in embedded mode, where the
 * in-process queue runs the same handlers. Needs JobsModule (global) and PersistenceModule.
 * EmbeddingModelsModule brings the embedder (transformers.js) and registers EMBEDDING_MODEL at boot.
 */
@Module({
  imports: [EmbeddingModelsModule, SyncModule, MemoriesModule],
  providers: [
    MemoryIndexStateRepository,
    { provide: MEMORY_INDEX_STEP, useExisting: EmbedMemoryStep },
    IndexMemoryUseCase,
    MemoryIndexProcessor,
    EmbeddingsReindexProcessor,
    SyncPurgeTombstonesProcessor,
    SyncPurgeTombstonesSchedule,
    SecretsMigrateProcessor,
    SecretsCleanupProcessor,
    SecretsCleanupSchedule,
  ],
})
export class ProcessorsModule {}
