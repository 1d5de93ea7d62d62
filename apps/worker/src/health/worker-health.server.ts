import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { JOB_QUEUE, withTimeout, type JobQueue } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { closeInternal, listenInternal, METRICS_REGISTRY, serveMetrics } from '@app/observability';

type Check = 'up' | 'down';

/**
 * Internal HTTP endpoint for probes and Prometheus (the worker has no public routes):
 * `/health/live` (process), `/health/ready` (database and Redis), `/metrics` (METRICS_TOKEN applies).
 */
@Injectable()
export class WorkerHealthServer implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('WorkerHealth');
  private server: Server | undefined;
  private draining = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(TransactionRunner) private readonly transactions: TransactionRunner,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(METRICS_REGISTRY) private readonly metrics: Registry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    await listenInternal(server, this.config.worker.healthPort, this.config.worker.healthHost);
    this.server = server;
    this.logger.log(`health and metrics on port ${this.port()}`);
  }

  /** The bound port (differs from the configured one when that is 0). */
  port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? this.config.worker.healthPort;
  }

  /** Draining: report not-ready so nothing waits on this replica, but stay up for the probes. */
  beginDrain(): void {
    this.draining = true;
  }

  onModuleDestroy(): void {
    this.beginDrain();
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await closeInternal(server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    try {
      if (req.method !== 'GET')
        return send(res, 405, { detail: 'Method not allowed', code: 'method_not_allowed' });
      if (path === '/health/live' || path === '/health') return send(res, 200, { status: 'ok' });
      if (path === '/health/ready') return await this.ready(res);
      if (path === '/metrics') {
        return await serveMetrics(req, res, { registry: this.metrics, token: this.config.metrics.token });
      }
      send(res, 404, { detail: 'Not found', code: 'not_found' });
    } catch (error) {
      this.logger.warn(`health endpoint ${path} failed: ${String(error)}`);
      if (!res.headersSent) send(res, 500, { detail: 'Internal error', code: 'internal' });
    }
  }

  private async ready(res: ServerResponse): Promise<void> {
    const [database, redis] = await Promise.all([
      this.check(() => this.transactions.ping(2_000)),
      this.check(() => this.queue.ping()),
    ]);
    const ok = database === 'up' && redis === 'up' && !this.draining;
    send(res, ok ? 200 : 503, {
      status: ok ? 'ok' : 'unavailable',
      checks: { database, redis, draining: this.draining },
    });
  }

  private async check(probe: () => Promise<unknown>): Promise<Check> {
    try {
      await withTimeout(probe(), 2_000, 'readiness check');
      return 'up';
    } catch {
      return 'down';
    }
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
