import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { CanActivate, ExecutionContext, Global, Injectable, Module } from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ConfigModule, loadConfig } from '@app/config';
import { ObservabilityModule } from '@app/observability';
import { REPLICA_READS, TransactionRunner } from '@app/persistence';
import { IS_PUBLIC_KEY } from '../auth/auth.decorators';
import { HealthModule } from './health.module';
import { ShutdownState } from './shutdown-state';

/** Stands in for the global API-key guard: anything not marked public is refused. */
@Injectable()
class DenyUnlessPublicGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}
  canActivate(context: ExecutionContext): boolean {
    return (
      this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [context.getHandler(), context.getClass()]) ===
      true
    );
  }
}

const database = { query: vi.fn<(sql: string) => Promise<unknown>>() };
/** The readiness probe's way to the database: a `SELECT 1` that answers or fails as `database` says. */
const transactions = { ping: async () => void (await database.query('SELECT 1')) };

@Global()
@Module({
  providers: [
    { provide: TransactionRunner, useValue: transactions },
    // No read replicas configured.
    { provide: REPLICA_READS, useValue: null },
  ],
  exports: [TransactionRunner, REPLICA_READS],
})
class FakePersistenceModule {}

/** Just enough of the Redis protocol for a health client: PING, INFO, CLIENT SETNAME. */
class FakeRedis {
  private readonly sockets = new Set<Socket>();
  readonly server: Server = createServer((socket) => {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('data', (chunk) => {
      for (const command of chunk.toString().match(/\*\d+\r\n\$\d+\r\n[A-Za-z]+/g) ?? []) {
        const name = command.split('\r\n')[2].toUpperCase();
        const info = 'redis_version:7.2.0\r\nloading:0\r\n';
        socket.write(
          name === 'PING' ? '+PONG\r\n' : name === 'INFO' ? `$${info.length}\r\n${info}\r\n` : '+OK\r\n',
        );
      }
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `redis://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Drops every client and refuses new ones, like a Redis that went away. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe('HealthModule', () => {
  const redis = new FakeRedis();
  let app: NestFastifyApplication;

  beforeAll(async () => {
    const config = loadConfig({ REDIS_URL: await redis.start(), DATABASE_URL: 'postgres://unused/db' });
    const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
    const moduleRef = await Test.createTestingModule({
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule.forRoot(config, { destination: silent }),
        FakePersistenceModule,
        HealthModule,
      ],
      providers: [{ provide: APP_GUARD, useClass: DenyUnlessPublicGuard }],
    }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app?.close();
    await redis.stop().catch(() => undefined);
  });

  afterEach(() => database.query.mockReset());

  const get = (url: string) => app.getHttpAdapter().getInstance().inject({ method: 'GET', url });

  it('GET /health answers exactly {"status":"ok"} without touching the database', async () => {
    const res = await get('/health');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('{"status":"ok"}');
    expect(database.query).not.toHaveBeenCalled();
  });

  it('GET /health/live checks the process only', async () => {
    database.query.mockRejectedValue(new Error('database down'));
    const res = await get('/health/live');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok' });
    expect(database.query).not.toHaveBeenCalled();
  });

  it('GET /health/ready is 200 when the database and Redis answer', async () => {
    database.query.mockResolvedValue([{ '?column?': 1 }]);
    const res = await get('/health/ready');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'ok',
      info: { lifecycle: { status: 'up' }, database: { status: 'up' }, redis: { status: 'up' } },
    });
    expect(database.query).toHaveBeenCalledWith('SELECT 1');
  });

  it('GET /health/ready is 503 when the database fails', async () => {
    database.query.mockRejectedValue(new Error('connection refused'));
    const res = await get('/health/ready');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({
      status: 'error',
      code: 'not_ready',
      detail: 'not ready: database',
      error: { database: { status: 'down', message: 'connection refused' } },
    });
  });

  it('GET /health/ready is 503 when the database hangs, instead of hanging the probe', async () => {
    database.query.mockReturnValue(new Promise(() => undefined));
    const started = Date.now();
    const res = await get('/health/ready');
    expect(res.statusCode).toBe(503);
    expect(res.json().error.database.message).toMatch(/did not answer/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('GET /metrics serves the Prometheus text format without a key', async () => {
    const res = await get('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.body).toContain('process_cpu_user_seconds_total');
  });

  it('GET /metrics reports the database and Redis as up', async () => {
    database.query.mockResolvedValue([{ '?column?': 1 }]);
    const res = await get('/metrics');
    expect(res.body).toMatch(/^memsvc_dependency_up\{dependency="database",service="memory-api"\} 1$/m);
    expect(res.body).toMatch(/^memsvc_dependency_up\{dependency="redis",service="memory-api"\} 1$/m);
  });

  it('GET /health/ready stays 200 when Redis is unreachable, reporting it degraded', async () => {
    database.query.mockResolvedValue([{ '?column?': 1 }]);
    await redis.stop();
    const res = await get('/health/ready');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'ok',
      degraded: ['redis'],
      info: { database: { status: 'up' } },
      details: { redis: { status: 'down', impact: expect.stringMatching(/outbox/) } },
    });
    expect(res.json().info).not.toHaveProperty('redis');
    // The gauge alerts on it instead; a scrape within a second reuses the previous checks.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const metrics = await get('/metrics');
    expect(metrics.body).toMatch(/^memsvc_dependency_up\{dependency="redis",service="memory-api"\} 0$/m);
    expect(metrics.body).toMatch(/^memsvc_dependency_up\{dependency="database",service="memory-api"\} 1$/m);
  });

  it('GET /health/ready turns 503 once shutdown begins, while /health still answers', async () => {
    database.query.mockResolvedValue([{ '?column?': 1 }]);
    app.get(ShutdownState).beginShutdown();
    const res = await get('/health/ready');
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toEqual(
      expect.objectContaining({ lifecycle: { status: 'down', message: 'shutting down' } }),
    );
    expect((await get('/health')).statusCode).toBe(200);
  });
});
