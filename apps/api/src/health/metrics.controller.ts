import { Controller, Get, Header, Headers, Inject, NotFoundException } from '@nestjs/common';
import { Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { METRICS_REGISTRY, metricsScrapeAllowed } from '@app/observability';
import { TenancyError, TenancyErrorCode } from '@app/tenancy';
import { Public } from '../auth/auth.decorators';

/**
 * Prometheus text exposition, outside the `/api` prefix and without an API key. With METRICS_PORT
 * it is served there instead (MetricsPortServer) and this route answers 404; with METRICS_TOKEN it
 * needs `Authorization: Bearer <token>`.
 */
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  @Header('Cache-Control', 'no-store')
  metrics(@Headers('authorization') authorization?: string): Promise<string> {
    if (this.config.metrics.port > 0) {
      throw new NotFoundException(`/metrics is served on port ${this.config.metrics.port} (METRICS_PORT)`);
    }
    if (!metricsScrapeAllowed(authorization, this.config.metrics.token)) {
      throw new TenancyError(
        TenancyErrorCode.Unauthenticated,
        'METRICS_TOKEN is set: send Authorization: Bearer <token>',
      );
    }
    return this.registry.metrics();
  }
}
