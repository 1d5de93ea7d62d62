import { Module } from '@nestjs/common';
import { EmbeddingsModule } from '@app/embeddings';
import { JobsModule } from '@app/jobs';
import { TenancyModule } from '@app/tenancy';
import { AdminController } from './admin.controller';
import { AdminJobsController } from './admin-jobs.controller';
import { AdminMetricsController } from './admin-metrics.controller';
import { AdminKeysController } from './admin-keys.controller';
import { AdminUsersController } from './admin-users.controller';
import { EmbeddingsAdminController } from './embeddings-admin.controller';
import { SecretsAdminController } from './secrets-admin.controller';
import { MemoriesModule } from '@app/memories';
import { WebhooksModule } from '@app/webhooks';
import { AdminWebhooksController } from './admin-webhooks.controller';

/**
 * `/api/admin/*` (admin scope): users and API keys of the caller's tenant, the embedding model
 * switch, the secret migration, job progress and webhook endpoints. EmbeddingsModule also registers EMBEDDING_MODEL at API boot.
 */
@Module({
  imports: [TenancyModule, EmbeddingsModule, MemoriesModule, JobsModule, WebhooksModule],
  controllers: [
    AdminController,
    AdminUsersController,
    AdminKeysController,
    AdminJobsController,
    AdminMetricsController,
    EmbeddingsAdminController,
    SecretsAdminController,
    AdminWebhooksController,
  ],
})
export class AdminModule {}
