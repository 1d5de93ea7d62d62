import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ConfigModule, type AppConfig } from '@app/config';
import { JobsRuntimeModule } from '@app/jobs';
import { ObservabilityModule } from '@app/observability';
import { LocalWritePositions, PersistenceModule } from '@app/persistence';
import { createUrlRedactor } from '@app/secrets';
import { redactSignInCallback } from './auth/console-sign-in.routes';
import { AdminModule } from './admin/admin.module';
import { AuthModule } from './auth/auth.module';
import { HealthModule } from './health/health.module';
import { HttpExceptionFilter } from './http/http-exception.filter';
import { JobsHttpModule } from './jobs/jobs-http.module';
import { MemoriesHttpModule } from './memories/memories-http.module';
import { McpModule } from './mcp/mcp.module';
import { SessionsHttpModule } from './sessions/sessions-http.module';
import { UsageHttpModule } from './usage/usage-http.module';

/**
 * The API's composition root, for every mode: the transports (REST, MCP, health) over the domain
 * libs. The job runtime is chosen by configuration, not by importing another app: with Redis the
 * API only produces jobs and workers consume them; without Redis (embedded mode, or a small
 * install with Postgres only) the in-process queue runs the `@HandlesJob` handlers that the
 * domain modules imported here declare.
 */
import { RedisWritePositions } from './replicas/redis-write-positions';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        // Logged URLs pass the same secret detector as memory text (a token in `?project=…`); a
        // sign-in callback's code and state are always hidden.
        ObservabilityModule.forRoot(config, { redactUrl: redactSignInCallback(createUrlRedactor()) }),
        PersistenceModule.forRoot({
          applicationName: 'memory-api',
          migrate: true,
          // Several API processes share users' write positions through Redis; one keeps its own.
          readReplicas: {
            writePositions: (c) =>
              c.redis.url
                ? new RedisWritePositions(c.redis.url, c.redis.queuePrefix)
                : new LocalWritePositions(),
          },
        }),
        JobsRuntimeModule.forRoot({ role: 'api' }),
        AuthModule,
        AdminModule,
        HealthModule,
        JobsHttpModule,
        MemoriesHttpModule,
        McpModule,
        SessionsHttpModule,
        UsageHttpModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: HttpExceptionFilter }],
    };
  }
}
