import type { RedisOptions } from 'bullmq';
import IORedis from 'ioredis';

export interface RedisConnectionOptions {
  readonly url: string;
  readonly connectionName: string;
  /**
   * Producers fail fast while Redis is unreachable (the outbox keeps the job and the relay retries);
   * consumers queue commands until the connection is back.
   */
  readonly failFast: boolean;
}

/** Reconnect at most 2 s apart, so jobs flow again soon after an outage (BullMQ's default backs off to 20 s). */
const retryStrategy = (times: number): number => Math.min(100 * times, 2_000);

/**
 * Connection options handed to BullMQ, which then owns (and closes) its connections.
 * `maxRetriesPerRequest: null` is what BullMQ requires: blocking commands must not give up.
 */
export function bullMqConnection(options: RedisConnectionOptions): RedisOptions {
  return {
    url: options.url,
    maxRetriesPerRequest: null,
    enableOfflineQueue: !options.failFast,
    connectionName: options.connectionName,
    retryStrategy,
    connectTimeout: 5_000,
  };
}

/** A plain client for health checks and availability events (BullMQ keeps its clients internal). */
export function createMonitorClient(
  options: RedisConnectionOptions,
  onError: (error: Error) => void,
): IORedis {
  const client = new IORedis(options.url, {
    maxRetriesPerRequest: null,
    enableOfflineQueue: !options.failFast,
    connectionName: options.connectionName,
    retryStrategy,
    connectTimeout: 5_000,
  });
  // Without a listener ioredis prints every failed reconnect as an unhandled error event.
  client.on('error', onError);
  return client;
}

export async function closeRedisClient(client: IORedis): Promise<void> {
  if (client.status === 'end') return;
  try {
    if (client.status === 'ready') await client.quit();
    else client.disconnect();
  } catch {
    client.disconnect();
  }
}

/** Rejects when `promise` has not settled after `ms`; the underlying work is not cancelled. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
