import { DynamicModule, Global, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { type AppConfig } from '@app/config';
import { createMetricsRegistry, METRICS_REGISTRY } from './http-metrics';
import { BUILD_INFO, readBuildInfo, registerBuildInfo } from './build-info';
import { buildLoggerParams } from './logger-options';
import { RequestLog } from './request-log';
import { ServiceLogger } from './service-logger';

export interface ObservabilityOptions {
  /** Logger name and the `service` label on every metric. */
  readonly name?: string;
  /** Log destination; stdout when absent (tests pass a stream). */
  readonly destination?: DestinationStream;
  /** Rewrites logged request URLs (credentials in query strings). */
  readonly redactUrl?: (url: string) => string;
}

/** pino logging (nestjs-pino), a Prometheus registry under `METRICS_REGISTRY`, and `BUILD_INFO`. */
@Global()
@Module({})
export class ObservabilityModule {
  static forRoot(config: AppConfig, options: ObservabilityOptions = {}): DynamicModule {
    const name = options.name ?? 'memory-api';
    const buildInfo = readBuildInfo(config);
    return {
      module: ObservabilityModule,
      imports: [
        LoggerModule.forRoot(
          buildLoggerParams(config, { name, destination: options.destination, redactUrl: options.redactUrl }),
        ),
      ],
      providers: [
        { provide: BUILD_INFO, useValue: buildInfo },
        {
          provide: METRICS_REGISTRY,
          useFactory: () => {
            const registry = createMetricsRegistry({ service: name });
            registerBuildInfo(registry, buildInfo);
            return registry;
          },
        },
        ServiceLogger,
        RequestLog,
      ],
      exports: [LoggerModule, METRICS_REGISTRY, BUILD_INFO, ServiceLogger, RequestLog],
    };
  }
}
