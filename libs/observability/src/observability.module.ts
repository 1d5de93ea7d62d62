import { DynamicModule, Global, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { type AppConfig } from '@app/config';
import { createMetricsRegistry, METRICS_REGISTRY } from './http-metrics';
import { buildLoggerParams } from './logger-options';
import { ServiceLogger } from './service-logger';

export interface ObservabilityOptions {
  /** Logger name and the `service` label on every metric. */
  readonly name?: string;
  /** Log destination; stdout when absent (tests pass a stream). */
  readonly destination?: DestinationStream;
  /** Rewrites logged request URLs (credentials in query strings). */
  readonly redactUrl?: (url: string) => string;
}

/** pino logging (nestjs-pino) and a Prometheus registry under `METRICS_REGISTRY`. */
@Global()
@Module({})
export class ObservabilityModule {
  static forRoot(config: AppConfig, options: ObservabilityOptions = {}): DynamicModule {
    const name = options.name ?? 'memory-api';
    return {
      module: ObservabilityModule,
      imports: [
        LoggerModule.forRoot(
          buildLoggerParams(config, { name, destination: options.destination, redactUrl: options.redactUrl }),
        ),
      ],
      providers: [
        { provide: METRICS_REGISTRY, useFactory: () => createMetricsRegistry({ service: name }) },
        ServiceLogger,
      ],
      exports: [LoggerModule, METRICS_REGISTRY, ServiceLogger],
    };
  }
}
