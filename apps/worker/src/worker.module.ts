import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, type AppConfig } from '@app/config';
import { EmbeddingsModule } from '@app/embeddings';
import { JobsRuntimeModule } from '@app/jobs';
import { MemoriesModule } from '@app/memories';
import { ObservabilityModule } from '@app/observability';
import { PersistenceModule } from '@app/persistence';
import { SessionsModule } from '@app/sessions';
import { SyncModule } from '@app/sync';
import { WebhooksModule } from '@app/webhooks';
import { WorkerHealthServer } from './health/worker-health.server';

/**
 * The worker process: the job runtime consuming every job the imported domain modules declare
 * with @HandlesJob (embeddings: memory.index-batch, memory.index, embeddings.reindex, embeddings.reconcile,
 * embeddings.tenant-indexes; memories:
 * secrets.migrate, secrets.cleanup, memories.fold-text-stats, memories.fold-usage; sync: sync.purge-tombstones; sessions:
 * sessions.process, sessions.extract),
 * the outbox relay, health and metrics. No public routes.
 */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule.forRoot(config, { name: 'memory-worker' }),
        // Migrations are guarded by an advisory lock, so the worker may apply them too.
        PersistenceModule.forRoot({ applicationName: 'memory-worker', migrate: true }),
        JobsRuntimeModule.forRoot({ role: 'worker' }),
        EmbeddingsModule,
        MemoriesModule,
        SyncModule,
        WebhooksModule,
        SessionsModule,
      ],
      providers: [WorkerHealthServer],
    };
  }
}
