import { Module } from '@nestjs/common';
import { EmbeddingModelsModule } from '@app/memories/embedding-models.module';
import { TenancyModule } from '@app/tenancy';
import { AdminController } from './admin.controller';
import { EmbeddingsAdminController } from './embeddings-admin.controller';

/**
 * `/api/admin/*` (admin scope): users and API keys of the caller's tenant, the embedding model
 * switch and job progress. EmbeddingModelsModule also registers EMBEDDING_MODEL at API boot.
 */
@Module({
  imports: [TenancyModule, EmbeddingModelsModule],
  controllers: [AdminController, EmbeddingsAdminController],
})
export class AdminModule {}
