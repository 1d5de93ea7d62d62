import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { closeInternal, listenInternal, METRICS_REGISTRY, serveMetrics } from '@app/observability';

/**
 * `GET /metrics` on METRICS_PORT, apart from the public port: an ingress or load balancer in front
 * of PORT then never exposes it. Nothing else is served there. Off when METRICS_PORT is 0.
 */
@Injectable()
export class MetricsPortServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server: Server | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.metrics.port === 0) return;
    const options = { registry: this.registry, token: this.config.metrics.token };
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' || path !== '/metrics') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ detail: 'Only GET /metrics is served here', code: 'not_found' }));
        return;
      }
      serveMetrics(req, res, options).catch((error: unknown) => {
        this.logger.warn(`metrics scrape failed: ${String(error)}`);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    await listenInternal(server, this.config.metrics.port, this.config.http.host);
    this.server = server;
    this.logger.log(`metrics on port ${(server.address() as AddressInfo).port}`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await closeInternal(server);
  }
}
