import { Logger } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';

/** Longest wait for a counter: past it the request goes through uncounted rather than waiting. */
export const RATE_LIMIT_COMMAND_TIMEOUT_MS = 500;

/**
 * The rate limiter's own Redis connection, made to fail fast: no offline queue (a command while
 * disconnected fails at once), no retries of a command, and a short command timeout for a Redis
 * that accepts connections but does not answer. Such a connection is also dropped once it has kept a
 * command waiting that long (socketTimeout), so the requests after it do not each wait out the
 * timeout: until a reconnect passes its ready check the connection is not ready and every command
 * fails at once. The limiter lets requests through meanwhile (skipOnError); reconnects run in the
 * background, at most 2 s apart. Closed with the HTTP server.
 */
export function createRateLimitRedis(fastify: FastifyInstance, url: string): Redis {
  const logger = new Logger('RateLimit');
  const client = new Redis(url, {
    connectionName: 'memory-api-rate-limit',
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: RATE_LIMIT_COMMAND_TIMEOUT_MS,
    socketTimeout: RATE_LIMIT_COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(100 * times, 2_000),
  });
  let down = false;
  // Once per outage, not once per reconnect attempt; without a listener ioredis prints every retry.
  client.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.warn(`Redis unavailable (${error.message}): rate limits are not enforced until it is back`);
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    logger.log('Redis is back: rate limits are enforced again');
  });
  fastify.addHook('onClose', async () => {
    client.disconnect();
  });
  return client;
}
