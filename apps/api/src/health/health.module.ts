import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DatabaseHealthIndicator, RedisHealthIndicator } from './dependency-health.indicators';
import { DependencyMetrics } from './dependency-metrics';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
import { ShutdownState } from './shutdown-state';

/** /health, /health/live, /health/ready and /metrics. Needs the global config, persistence and observability modules. */
@Module({
  imports: [TerminusModule.forRoot({ errorLogStyle: 'json' })],
  controllers: [HealthController, MetricsController],
  providers: [ShutdownState, DatabaseHealthIndicator, RedisHealthIndicator, DependencyMetrics],
  exports: [ShutdownState],
})
export class HealthModule {}
