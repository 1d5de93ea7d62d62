import 'reflect-metadata';
import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { withDatabaseUrl, type AppConfig } from '@app/config';
import { startupFailureMessage } from '@app/kernel';
import {
  bootstrapProcess,
  genReqId,
  registerHttpMetrics,
  registerRequestIdHeader,
  METRICS_REGISTRY,
  ServiceLogger,
} from '@app/observability';
import {
  startEmbeddedPostgres,
  startMigratedEmbeddedPostgres,
  type EmbeddedPostgres,
} from '@app/persistence';
import { AppModule } from './app.module';
import { BootstrapResultHolder } from './auth/auth.module';
import { drainJobs } from '@app/jobs';
import { ShutdownState } from './health/shutdown-state';
import { configureHttp } from './http/configure-http';
import { toErrorResponse } from './http/error-mapping';
import { checkDependencies } from './preflight';

export interface StartedApi {
  readonly app: NestFastifyApplication;
  readonly url: string;
  stop(): Promise<void>;
}

/** Builds and starts the API (used by main and by in-process tests). */
export async function startApi(config: AppConfig): Promise<StartedApi> {
  let embedded: EmbeddedPostgres | undefined;
  let effective = config;
  if (config.mode === 'embedded') {
    embedded = config.database.runMigrations
      ? await startMigratedEmbeddedPostgres({
          dataDir: config.embedded.dataDir,
          statementTimeoutMs: config.database.statementTimeoutMs,
        })
      : await startEmbeddedPostgres({ dataDir: config.embedded.dataDir });
    effective = withDatabaseUrl(config, embedded.url, embedded.poolSize);
  }
  // Known once Nest has built the app; the server asks it on every response it starts.
  let shutdown: ShutdownState | undefined;
  const adapter = new FastifyAdapter({
    bodyLimit: config.http.bodyLimitBytes,
    serverFactory: (handler: RequestListener) =>
      createHttpServer(
        config.http.requestTimeoutMs,
        closeConnectionsWhenDraining(handler, () => shutdown?.isShuttingDown === true),
      ),
    trustProxy: config.http.trustProxy,
    genReqId,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    // The router refuses a malformed or over-long path before any route or error handler runs;
    // answer it in the API's own error shape rather than Fastify's.
    frameworkErrors: (error: Error, _request: unknown, reply: FastifyReply) => {
      const { status, body } = toErrorResponse(error);
      void reply.status(status).type('application/json; charset=utf-8').send(body);
    },
  });
  let app: NestFastifyApplication;
  try {
    app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(effective), adapter, {
      bufferLogs: true,
      // A failed start is reported once by the caller (startupFailureMessage), not as Nest's stack
      // trace followed by the buffered start-up lines.
      abortOnError: false,
      autoFlushLogs: false,
      // JSON parsing is ours (configureHttp): safe parser, empty body allowed, NUL/surrogates refused.
      bodyParser: false,
    });
    app.useLogger(app.get(ServiceLogger));
    app.flushLogs();
    registerHttpMetrics(app.getHttpAdapter().getInstance(), app.get(METRICS_REGISTRY));
    registerRequestIdHeader(app.getHttpAdapter().getInstance());
    shutdown = app.get(ShutdownState);
    await configureHttp(app, config);
    await app.listen(config.http.port, config.http.host);
  } catch (error) {
    // Release the embedded data directory's lock; otherwise only process exit clears it.
    await embedded?.close().catch(() => undefined);
    throw error;
  }
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.http.port;
  const url = `http://${config.http.host === '0.0.0.0' ? '127.0.0.1' : config.http.host}:${port}`;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      app.get(ShutdownState).beginShutdown();
      // Readiness is 503 from here on; keep serving while load balancers that watch it notice.
      if (config.http.shutdownDelayMs > 0) await delay(config.http.shutdownDelayMs);
      // Stop accepting and let in-flight requests finish before any destroy hook runs: Nest calls
      // those (embedder, job relay) before it closes the HTTP server, under running requests.
      await app.getHttpAdapter().close();
      await drainJobs(app, config.worker.shutdownGraceMs);
      await app.close();
      await embedded?.close();
    })());
  return { app, url, stop };
}

/**
 * The HTTP server with REQUEST_TIMEOUT_MS applied to receiving headers and the whole request.
 * Node checks those deadlines only every `connectionsCheckingInterval` (30 s by default), which let
 * slow senders hold a connection 48–80 s against a 30 s setting; checking every second keeps the
 * cut within a second of the configured time.
 */
function createHttpServer(requestTimeoutMs: number, handler: RequestListener): Server {
  const server = createServer(
    {
      requestTimeout: requestTimeoutMs,
      headersTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, Math.max(100, Math.floor(requestTimeoutMs / 4))),
      // Longer than the 60 s idle timeout of common load balancers, so they close first.
      keepAliveTimeout: 65_000,
    },
    handler,
  );
  // An idle socket (no bytes either way) is closed a little after the request deadline.
  server.setTimeout(requestTimeoutMs + 5_000);
  return server;
}

/**
 * Once shutdown begins, every response ends its keep-alive connection (`Connection: close`):
 * clients reconnect to another replica, and the server's close is not held open by idle sockets
 * of finished requests. Done on the raw response, so replies written outside Fastify's hooks (the
 * MCP transport writes its own) close theirs too, including requests already running at SIGTERM.
 */
function closeConnectionsWhenDraining(handler: RequestListener, draining: () => boolean): RequestListener {
  return (request, response) => {
    // Node writes the head through writeHead, also when a response ends without calling it.
    const writeHead = response.writeHead;
    response.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      if (draining() && !this.headersSent) this.setHeader('connection', 'close');
      return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as typeof response.writeHead;
    handler(request, response);
  };
}

if (require.main === module) {
  bootstrapProcess({
    preflight: checkDependencies,
    start: async (config) => {
      const api = await startApi(config);
      return { ...api, logger: api.app.get(ServiceLogger) };
    },
    started: (api, config) => {
      api.logger.log(`memory service listening on ${api.url} (${config.mode} mode)`, 'Bootstrap');
      const generated = api.app.get(BootstrapResultHolder).result?.generatedAdminKey;
      if (!generated) return;
      // Printed once, to the terminal only: the database keeps just its hash.
      process.stdout.write(
        `\nNo API key was configured, so an admin key was created. Save it now; it is not shown again:\n\n  ${generated}\n\n` +
          `Try: curl -H "Authorization: Bearer ${generated}" ${api.url}/api/memories\n\n`,
      );
    },
    stopBudgetMs: (config) => config.http.shutdownDelayMs + config.worker.shutdownGraceMs,
    failureMessage: (error) => startupFailureMessage(error),
  });
}
