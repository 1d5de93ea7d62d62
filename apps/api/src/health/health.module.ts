import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DatabaseHealthIndicator, RedisHealthIndicator } from './dependency-health.indicators';
import { DependencyMetrics } from './dependency-metrics';
import { ReplicaMetrics } from './replica-metrics';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
import { MetricsPortServer } from './metrics-port.server';
import { VersionController } from './version.controller';
import { ShutdownState } from './shutdown-state';

/**
 * /health, /health/live, /health/ready, /version and /metrics (or METRICS_PORT). Needs the global
 * config, persistence and observability modules.
 */
@Module({
  imports: [TerminusModule.forRoot({ errorLogStyle: 'json' })],
  controllers: [HealthController, MetricsController, VersionController],
  providers: [
    ShutdownState,
    DatabaseHealthIndicator,
    RedisHealthIndicator,
    MetricsPortServer,
    DependencyMetrics,
    ReplicaMetrics,
  ],
  exports: [ShutdownState],
})
export class HealthModule {}
