import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { Gauge, type Registry } from 'prom-client';
import { METRICS_REGISTRY } from '@app/observability';
import { DatabaseHealthIndicator, RedisHealthIndicator } from './dependency-health.indicators';

/** A scrape within this long of the previous one reuses its checks. */
const REUSE_MS = 1_000;

/**
 * `memsvc_dependency_up{dependency="database"|"redis"}`: 1 when the dependency answered its health
 * check at scrape time, 0 otherwise. Readiness stays 200 while Redis is down (writes commit through
 * the outbox), so this gauge is what alerts on a Redis outage. No `redis` series without a Redis URL.
 */
@Injectable()
export class DependencyMetrics implements OnModuleInit {
  private last: { at: number; value: Promise<Record<string, number>> } | undefined;

  constructor(
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
    private readonly database: DatabaseHealthIndicator,
    private readonly redis: RedisHealthIndicator,
  ) {}

  onModuleInit(): void {
    const current = () => this.current();
    new Gauge({
      name: 'memsvc_dependency_up',
      help: 'Whether a dependency answered its health check at scrape time (1 up, 0 down).',
      labelNames: ['dependency'],
      registers: [this.registry],
      async collect() {
        for (const [dependency, up] of Object.entries(await current())) this.set({ dependency }, up);
      },
    });
  }

  private current(): Promise<Record<string, number>> {
    if (!this.last || Date.now() - this.last.at > REUSE_MS) {
      this.last = { at: Date.now(), value: this.check() };
    }
    return this.last.value;
  }

  private async check(): Promise<Record<string, number>> {
    const [database, redis] = await Promise.all([
      this.database.check(),
      this.redis.enabled ? this.redis.check() : undefined,
    ]);
    return {
      database: database.database.status === 'up' ? 1 : 0,
      ...(redis ? { redis: redis.redis.status === 'up' ? 1 : 0 } : {}),
    };
  }
}
