import IORedis from 'ioredis';
import { dependencyFailure, serviceAddress } from '@app/kernel';

/**
 * Connects once (no retries) and sends PING, so a process refuses to start with one clear line
 * (`cannot reach Redis at redis:6379: connection refused`). Outages after the start are tolerated:
 * writes keep their jobs in the outbox until Redis is back.
 */
export async function probeRedis(url: string, timeoutMs = 5_000): Promise<void> {
  const client = new IORedis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    // A server that accepts the connection but never answers must not hold the start.
    commandTimeout: timeoutMs,
    connectionName: 'memsvc-startup-probe',
  });
  let lastError: unknown;
  client.on('error', (error) => (lastError = error));
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    // ioredis rejects a refused connect with "Connection is closed."; the socket error came first.
    throw dependencyFailure('Redis', serviceAddress(url, 6379), lastError ?? error);
  } finally {
    client.disconnect();
  }
}
