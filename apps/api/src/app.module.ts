import { DynamicModule, Module, type Type } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ConfigModule, type AppConfig } from '@app/config';
import { JobsModule } from '@app/jobs';
import { ObservabilityModule } from '@app/observability';
import { PersistenceModule } from '@app/persistence';
import { SecretsModule } from '@app/secrets';
import { ProcessorsModule } from '../../worker/src/processors/processors.module';
import { AdminModule } from './admin/admin.module';
import { AuthModule } from './auth/auth.module';
import { HealthModule } from './health/health.module';
import { HttpExceptionFilter } from './http/http-exception.filter';
import { MemoriesHttpModule } from './memories/memories-http.module';
import { McpModule } from './mcp/mcp.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    // Without Redis (embedded mode, or a small install with Postgres only) there is no separate
    // worker: the in-process queue runs the same job handlers inside the API process.
    const inProcessWorker: Type[] = config.redis.url === undefined ? [ProcessorsModule] : [];
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule.forRoot(config),
        PersistenceModule.forRoot({ applicationName: 'memory-api', migrate: true }),
        JobsModule.forRoot({ role: 'api' }),
        SecretsModule,
        ...inProcessWorker,
        AuthModule,
        AdminModule,
        HealthModule,
        MemoriesHttpModule,
        McpModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: HttpExceptionFilter }],
    };
  }
}
