import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, type AppConfig } from '@app/config';
import { JobsModule } from '@app/jobs';
import { ObservabilityModule } from '@app/observability';
import { PersistenceModule } from '@app/persistence';
import { SecretsModule } from '@app/secrets';
import { WorkerHealthServer } from './health/worker-health.server';
import { ProcessorsModule } from './processors/processors.module';

/** The worker process: job processors, the outbox relay, health and metrics. No public routes. */
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
        JobsModule.forRoot({ role: 'worker' }),
        SecretsModule,
        ProcessorsModule,
      ],
      providers: [WorkerHealthServer],
    };
  }
}
