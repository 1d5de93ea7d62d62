import { Module } from '@nestjs/common';
import { EmbeddingModelsModule } from '@app/memories/embedding-models.module';
import { TenancyModule } from '@app/tenancy';
import { AdminController } from './admin.controller';
import { EmbeddingsAdminController } from './embeddings-admin.controller';
import { SecretsAdminController } from './secrets-admin.controller';
import { MemoriesModule } from '@app/memories';

/**
 * `/api/admin/*` (admin scope): users and API keys of the caller's tenant, the embedding model
 * switch, the secret migration and job progress. EmbeddingModelsModule also registers EMBEDDING_MODEL at API boot.
 */
@Module({
  imports: [TenancyModule, EmbeddingModelsModule, MemoriesModule],
  controllers: [AdminController, EmbeddingsAdminController, SecretsAdminController],
})
export class AdminModule {}
