import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { OutboxWriter } from '@app/jobs';
import { AuditWriter } from '@app/tenancy';
import { IdempotencyRepository } from './adapters/idempotency.repository';
import { MemoryTextSearchRepository } from './adapters/memory-text-search.repository';
import { VectorRecallAdapter } from './adapters/vector-recall.adapter';
import { CheckMemoryUseCase } from './application/check-memory.use-case';
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
];

@Module({
  imports: [EmbeddingModelsModule, SyncModule],
  providers: [
    MemoryTextSearchRepository,
    VectorRecallAdapter,
    { provide: VECTOR_RECALL, useExisting: VectorRecallAdapter },
    MemoryRepository,
    IdempotencyRepository,
    MemoryWriter,
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
