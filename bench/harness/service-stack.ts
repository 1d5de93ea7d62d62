import IORedis from 'ioredis';
import { loadConfig, type AppConfig } from '@app/config';
import { startApi, type StartedApi } from '../../apps/api/src/main';
import { startWorker, type StartedWorker } from '../../apps/worker/src/main';
import type { ServiceOptions } from './bench-options';

export interface ServiceStack {
  readonly config: AppConfig;
  readonly api: StartedApi;
  /** Stops the worker (jobs then wait in Redis); no-op without one. */
  stopWorker(): Promise<void>;
  /** Starts a fresh worker against the same database and queue. */
  startWorker(): Promise<void>;
  stop(): Promise<void>;
}

export interface StackOptions {
  readonly services: ServiceOptions;
  readonly databaseUrl: string;
  /** BullMQ key prefix; unique per run so the shared Redis is never disturbed. */
  readonly queuePrefix: string;
  readonly withWorker: boolean;
  /** Extra environment for this stack (e.g. VECTOR_EXACT_SCAN_MAX_ROWS=0 to force HNSW). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The real API (and worker) in this process, in server mode against the benchmark database, the
 * way `npm start` / `npm run start:worker` would run them: same modules, same config validation.
 */
export async function startServiceStack(options: StackOptions): Promise<ServiceStack> {
  const config = loadConfig({ ...serviceEnvironment(options), ...options.env });
  const api = await startApi(config);
  let worker: StartedWorker | null = null;
  try {
    if (options.withWorker) worker = await startWorker(config);
  } catch (error) {
    await api.stop();
    throw error;
  }
  const stopWorker = async () => {
    const running = worker;
    worker = null;
    await running?.stop();
  };
  return {
    config,
    api,
    stopWorker,
    startWorker: async () => {
      await stopWorker();
      worker = await startWorker(config);
    },
    stop: async () => {
      await stopWorker();
      await api.stop();
    },
  };
}

/**
 * The configuration every service under test runs with: production mode over the benchmark
 * database and queue prefix, ports chosen by the system unless given, `--env` overrides last.
 */
export function serviceEnvironment(
  options: Pick<StackOptions, 'services' | 'databaseUrl' | 'queuePrefix'>,
  ports: { api: number; workerHealth: number } = { api: 0, workerHealth: 0 },
): Record<string, string> {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(ports.api),
    WORKER_HEALTH_HOST: '127.0.0.1',
    WORKER_HEALTH_PORT: String(ports.workerHealth),
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.services.redisUrl,
    QUEUE_PREFIX: options.queuePrefix,
    MODELS_DIR: options.services.modelsDir,
    EMBEDDING_MODEL: options.services.model,
    // The benchmark stores far faster than one client would; the limiter is not under test.
    RATE_LIMIT_PER_MINUTE: '0',
    ...options.services.env,
  };
}

/** Deletes every Redis key under the run's queue prefix (BullMQ keys are `<prefix>:<queue>:…`). */
export async function removeQueueKeys(redisUrl: string, prefix: string): Promise<number> {
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  await redis.connect();
  let removed = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) removed += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return removed;
}
