import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { TransactionRunner } from '@app/persistence';
import { withTimeout } from './with-timeout';

/** Below the probe timeout the chart sets, so the probe gets a 503 rather than no answer. */
export const DEPENDENCY_CHECK_TIMEOUT_MS = 2_000;

@Injectable()
export class DatabaseHealthIndicator {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly indicators: HealthIndicatorService,
  ) {}

  async check(): Promise<HealthIndicatorResult<'database'>> {
    const session = this.indicators.check('database');
    try {
      // The outer bound covers a wait for a pooled connection; ping bounds the answer and closes a
      // connection that gave none.
      const probe = this.transactions.ping(DEPENDENCY_CHECK_TIMEOUT_MS);
      await withTimeout(probe, DEPENDENCY_CHECK_TIMEOUT_MS, 'database');
      return session.up();
    } catch (error) {
      return session.down({ message: describe(error) });
    }
  }
}

/**
 * Pings Redis on a connection of its own: a probe must not queue behind BullMQ's blocking
 * commands. Without a Redis URL (embedded mode) there is nothing to check.
 */
@Injectable()
export class RedisHealthIndicator implements OnApplicationShutdown {
  private readonly client: Redis | undefined;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly indicators: HealthIndicatorService,
  ) {
    if (!config.redis.url) return;
    this.client = new Redis(config.redis.url, {
      lazyConnect: true,
      // Fail a ping at once while disconnected instead of queueing it until Redis is back.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: DEPENDENCY_CHECK_TIMEOUT_MS,
      connectionName: 'memory-api-health',
    });
    // The down state is reported by check(); without a listener ioredis prints every retry.
    this.client.on('error', () => undefined);
  }

  get enabled(): boolean {
    return this.client !== undefined;
  }

  async check(): Promise<HealthIndicatorResult<'redis'>> {
    const session = this.indicators.check('redis');
    if (!this.client) return session.up({ message: 'not used' });
    const client = this.client;
    try {
      // The first check connects; a Redis that accepts connections but never answers would hold
      // that connect open, so it is inside the timeout too.
      const ping = async () => {
        if (client.status === 'wait') await client.connect();
        await client.ping();
      };
      await withTimeout(ping(), DEPENDENCY_CHECK_TIMEOUT_MS, 'redis');
      return session.up();
    } catch (error) {
      return session.down({ message: describe(error) });
    }
  }

  onApplicationShutdown(): void {
    this.client?.disconnect();
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
