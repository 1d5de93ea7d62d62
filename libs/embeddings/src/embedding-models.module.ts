import { Module } from '@nestjs/common';
import { JobsModule } from '@app/jobs';
import { TenancyModule } from '@app/tenancy';
import { EmbeddingModelRepository } from './adapters/embedding-model.repository';
import { StartReindexUseCase } from './application/start-reindex.use-case';
import { EmbedderModule } from './embedder.module';

/**
 * The model registry and the producer side of a reindex (`StartReindexUseCase`: the model checked
 * loadable, registered `filling`, the job recorded in the outbox), without the index jobs or the
 * configured model's registration at boot. `EmbeddingsModule` builds on it; the CLI imports it
 * alone. Needs the global PersistenceModule and ConfigModule.
 */
@Module({
  imports: [EmbedderModule, JobsModule, TenancyModule],
  providers: [EmbeddingModelRepository, StartReindexUseCase],
  exports: [EmbedderModule, EmbeddingModelRepository, StartReindexUseCase],
})
export class EmbeddingModelsModule {}
