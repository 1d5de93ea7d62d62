import { Inject, Injectable, Logger, Module, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { JobsModule } from '@app/jobs';
import { TenancyModule } from '@app/tenancy';
import { MemoryEmbeddingRepository } from './adapters/memory-embedding.repository';
import { IndexBacklogMetrics } from './adapters/index-backlog.metrics';
import { MemoryIndexStateRepository } from './adapters/memory-index-state.repository';
import { EmbedMemoriesStep } from './application/embed-memories.step';
import { IndexMemoriesUseCase } from './application/index-memories.use-case';
import { QueryEmbedder } from './application/query-embedder';
import { ReconcileIndexUseCase } from './application/reconcile-index.use-case';
import { MaintainTenantIndexesUseCase } from './application/maintain-tenant-indexes.use-case';
import { TenantVectorIndexRepository } from './adapters/tenant-vector-index.repository';
import { RegisterConfiguredModelUseCase } from './application/register-configured-model.use-case';
import { REINDEX_OPTIONS, RunReindexUseCase } from './application/run-reindex.use-case';
import { EmbeddingModelsModule } from './embedding-models.module';

/**
 * Registers EMBEDDING_MODEL while the app initialises, before any job consumer starts (Nest runs
 * every onModuleInit before the jobs runtime's onApplicationBootstrap), so the first
 * index job already finds a read model to embed with.
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

const USE_CASES = [
  IndexMemoriesUseCase,
  ReconcileIndexUseCase,
  MaintainTenantIndexesUseCase,
  RunReindexUseCase,
  RegisterConfiguredModelUseCase,
  QueryEmbedder,
];

/**
 * Everything about vectors except searching them: the embedder (transformers.js or TF.js, lazy, one model
 * instance per id, micro-batched), the model registry, the `memory.index-batch` job and the
 * reindex job (both declared with @HandlesJob), and query embedding with its cache for recall.
 * Needs the global PersistenceModule and ConfigModule.
 */
@Module({
  imports: [EmbeddingModelsModule, JobsModule, TenancyModule],
  providers: [
    {
      provide: REINDEX_OPTIONS,
      inject: [APP_CONFIG],
      // A few embedder batches per step: fewer transactions, and the micro-batcher still splits
      // them into EMBEDDING_BATCH_SIZE calls.
      useFactory: (config: AppConfig) => ({ batchSize: Math.min(config.embeddings.batchSize * 4, 1000) }),
    },
    MemoryEmbeddingRepository,
    MemoryIndexStateRepository,
    TenantVectorIndexRepository,
    EmbedMemoriesStep,
    ConfiguredModelRegistrar,
    IndexBacklogMetrics,
    ...USE_CASES,
  ],
  exports: [EmbeddingModelsModule, ...USE_CASES],
})
export class EmbeddingsModule {}
