import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { ConfigError, loadConfig, type AppConfig } from '@app/config';
import { startupFailureMessage } from '@app/kernel';
import { ServiceLogger } from '@app/observability';
import { WorkerHealthServer } from './health/worker-health.server';
import { drainJobs } from '@app/jobs';
import { WorkerModule } from './worker.module';
import { checkWorkerDependencies } from './preflight';

export interface StartedWorker {
  readonly app: INestApplicationContext;
  /** Base URL of the internal health/metrics server. */
  readonly healthUrl: string;
  stop(): Promise<void>;
}

/** The worker only runs against the real services; embedded mode runs jobs inside the API. */
export function missingWorkerSettings(config: AppConfig): string[] {
  const missing: string[] = [];
  if (!config.database.url) missing.push('DATABASE_URL');
  if (!config.redis.url) missing.push('REDIS_URL');
  return missing;
}

/** Builds and starts the worker (used by main and by in-process tests). */
export async function startWorker(config: AppConfig): Promise<StartedWorker> {
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
    bufferLogs: true,
    // A failed start is reported once by main (startupFailureMessage), not as Nest's stack trace.
    abortOnError: false,
    autoFlushLogs: false,
  });
  app.useLogger(app.get(ServiceLogger));
  app.flushLogs();
  await app.init();
  const health = app.get(WorkerHealthServer);
  const host = config.worker.healthHost === '0.0.0.0' ? '127.0.0.1' : config.worker.healthHost;
  let stopping: Promise<void> | undefined;
  // Readiness turns 503 first; the BullMQ workers stop taking jobs and active ones get
  // SHUTDOWN_GRACE_MS to finish (waiting ones stay queued for other workers); then the
  // destroy hooks close the models, Redis and Postgres connections and the health server.
  const stop = () =>
    (stopping ??= (async () => {
      health.beginDrain();
      await drainJobs(app, config.worker.shutdownGraceMs);
      await app.close();
    })());
  return { app, healthUrl: `http://${host}:${health.port()}`, stop };
}

async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const missing = missingWorkerSettings(config);
  if (missing.length > 0) {
    process.stderr.write(
      `The worker needs ${missing.join(' and ')}: it processes jobs from Redis against PostgreSQL.\n` +
        `For a single process with no external services, run \`npm start\` (embedded mode runs jobs in the API).\n`,
    );
    process.exit(1);
  }
  await checkWorkerDependencies(config);
  const worker = await startWorker(config);
  const logger = worker.app.get(ServiceLogger);
  logger.log(`worker started; health and metrics on ${worker.healthUrl}`, 'Bootstrap');
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.log(`${signal} received; draining`, 'Bootstrap');
      // Backstop if closing hangs after the drain (e.g. a stuck database call): exit rather than linger.
      const backstop = setTimeout(() => process.exit(1), config.worker.shutdownGraceMs + 10_000).unref();
      void worker.stop().then(
        () => {
          clearTimeout(backstop);
          process.exit(0);
        },
        (error: unknown) => {
          logger.error(`shutdown failed: ${String(error)}`, 'Bootstrap');
          process.exit(1);
        },
      );
    });
  }
}

if (require.main === module) {
  void main().catch((error: unknown) => {
    process.stderr.write(`${startupFailureMessage(error, 'worker failed to start')}\n`);
    process.exit(1);
  });
}
