import { Inject, Injectable, Logger, Module, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AdminJobRepository } from '@app/jobs/admin-jobs/admin-job.repository';
import { GetAdminJobUseCase } from '@app/jobs/admin-jobs/get-admin-job.use-case';
import { AuditWriter } from '@app/tenancy';
import { EmbeddingModelRepository } from './adapters/embedding-model.repository';
import { MemoryEmbeddingRepository } from './adapters/memory-embedding.repository';
import { MEMORY_VECTOR_OPTIONS, MemoryVectorRepository } from './adapters/memory-vector.repository';
import { EmbedMemoryStep } from './application/embed-memory.step';
import { RegisterConfiguredModelUseCase } from './application/register-configured-model.use-case';
import { REINDEX_OPTIONS, RunReindexUseCase } from './application/run-reindex.use-case';
import { StartReindexUseCase } from './application/start-reindex.use-case';
import { EmbeddingsModule } from './embeddings.module';

/**
 * Registers EMBEDDING_MODEL while the app initialises, before any job consumer starts (Nest runs
 * every onModuleInit before the jobs lifecycle's onApplicationBootstrap), so the first
 * `memory.index` job already finds a read model to embed with.
 */
@Injectable()
export class ConfiguredModelRegistrar implements OnModuleInit {
  private readonly logger = new Logger('EmbeddingModels');

  constructor(
    @Inject(RegisterConfiguredModelUseCase) private readonly register: RegisterConfiguredModelUseCase,
  ) {}

  async onModuleInit(): Promise<void> {
    const result = await this.register.execute();
    const model = `"${result.modelId}" (${result.dimensions}-d)`;
    if (result.outcome === 'activated') this.logger.log(`registered ${model} as the read model`);
    else if (result.outcome === 'not-registered') {
      this.logger.warn(
        `EMBEDDING_MODEL ${model} is not the read model ("${result.activeModelId}"); recall keeps using ` +
          `"${result.activeModelId}" until \`npm run cli -- embeddings reindex --model ${result.modelId}\` ` +
          `(or POST /api/admin/embeddings/reindex) has filled the new model and switched to it`,
      );
    } else this.logger.log(`EMBEDDING_MODEL ${model} is registered (${result.outcome})`);
  }
}

/**
 * The model registry, vector storage and search, the embedding index step and the reindex
 * (start, run, progress). Imported by the API (admin routes, recall) and by ProcessorsModule
 * (worker, and the API in embedded mode); Nest builds it once per app, so registration runs once.
 * Needs the global PersistenceModule and JobsModule.
 */
@Module({
  imports: [EmbeddingsModule],
  providers: [
    EmbeddingModelRepository,
    MemoryEmbeddingRepository,
    AdminJobRepository,
    { provide: AuditWriter, useClass: AuditWriter },
    {
      provide: MEMORY_VECTOR_OPTIONS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ exactScanMaxRows: config.embeddings.exactScanMaxRows }),
    },
    MemoryVectorRepository,
    {
      provide: REINDEX_OPTIONS,
      inject: [APP_CONFIG],
      // A few embedder batches per step: fewer transactions, and the micro-batcher still splits
      // them into EMBEDDING_BATCH_SIZE calls.
      useFactory: (config: AppConfig) => ({ batchSize: Math.min(config.embeddings.batchSize * 4, 1000) }),
    },
    RegisterConfiguredModelUseCase,
    ConfiguredModelRegistrar,
    StartReindexUseCase,
    RunReindexUseCase,
    GetAdminJobUseCase,
    EmbedMemoryStep,
  ],
  exports: [
    EmbeddingsModule,
    EmbeddingModelRepository,
    MemoryVectorRepository,
    StartReindexUseCase,
    RunReindexUseCase,
    GetAdminJobUseCase,
    EmbedMemoryStep,
  ],
})
export class EmbeddingModelsModule {}
