import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { type AppConfig } from '@app/config';
import { startupFailureMessage } from '@app/kernel';
import { bootstrapProcess, ServiceLogger } from '@app/observability';
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

if (require.main === module) {
  bootstrapProcess({
    refuse: (config) => {
      const missing = missingWorkerSettings(config);
      if (missing.length === 0) return null;
      return (
        `The worker needs ${missing.join(' and ')}: it processes jobs from Redis against PostgreSQL.\n` +
        'For a single process with no external services, run `npm start` (embedded mode runs jobs in the API).'
      );
    },
    preflight: checkWorkerDependencies,
    start: async (config) => {
      const worker = await startWorker(config);
      return { ...worker, logger: worker.app.get(ServiceLogger) };
    },
    started: (worker) =>
      worker.logger.log(`worker started; health and metrics on ${worker.healthUrl}`, 'Bootstrap'),
    // The drain has SHUTDOWN_GRACE_MS; closing the connections after it gets 10 s more.
    stopBudgetMs: (config) => config.worker.shutdownGraceMs + 10_000,
    failureMessage: (error) => startupFailureMessage(error, 'worker failed to start'),
  });
}
