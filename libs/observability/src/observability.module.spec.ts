import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { Controller, Get, HttpException, Param, Req } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import fastify from 'fastify';
import { Logger, PinoLogger } from 'nestjs-pino';
import type { Registry } from 'prom-client';
import { loadConfig } from '@app/config';
import { createUrlRedactor } from '@app/secrets';
import { HTTP_REQUEST_DURATION, METRICS_REGISTRY, registerHttpMetrics } from './http-metrics';
import { addRequestLogFields, RequestLog } from './request-log';
import { REDACTED } from './logger-options';
import { ObservabilityModule } from './observability.module';
import { genReqId, registerRequestIdHeader } from './request-id';

@Controller('things')
class ThingsController {
  constructor(private readonly logger: PinoLogger) {}

  @Get(':id')
  get(@Param('id') id: string, @Req() req: { raw: object }): { id: string } {
    if (id === 'boom') throw new HttpException('nope', 503);
    if (id === 'keyed' || id === 'keyed-boom') addRequestLogFields(req.raw, { keyId: 'key-7' });
    if (id === 'keyed-boom') throw new HttpException('down', 503);
    // Objects logged by application code go through the same redaction.
    this.logger.info(
      { user: { password: 'hunter2', api_key: 'k-1' }, memory: { content: 'visible' } },
      'loaded',
    );
    return { id };
  }
}

describe('ObservabilityModule on a Fastify app', () => {
  const lines: Record<string, unknown>[] = [];
  let app: NestFastifyApplication;
  let registry: Registry;

  beforeAll(async () => {
    const destination = new PassThrough();
    destination.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    });
    const config = loadConfig({ LOG_LEVEL: 'info' });
    const moduleRef = await Test.createTestingModule({
      imports: [
        ObservabilityModule.forRoot(config, {
          name: 'test-api',
          destination,
          redactUrl: createUrlRedactor(),
        }),
      ],
      controllers: [ThingsController],
    }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter({ genReqId }), {
      logger: false,
    });
    app.useLogger(app.get(Logger));
    registry = app.get(METRICS_REGISTRY);
    registerHttpMetrics(app.getHttpAdapter().getInstance(), registry);
    registerRequestIdHeader(app.getHttpAdapter().getInstance());
    // A route mounted on Fastify directly, outside Nest's middleware (as /mcp is).
    const requestLog = app.get(RequestLog);
    app
      .getHttpAdapter()
      .getInstance()
      .route({
        method: 'POST',
        url: '/outside',
        onRequest: (request, reply, done) => {
          requestLog.start(request.raw, reply.raw);
          done();
        },
        handler: async (request, reply) => {
          addRequestLogFields(request.raw, {
            keyId: 'key-9',
            mcp: { messages: 1, methods: ['tools/call'], tools: ['memory_store'] },
          });
          return reply.code(202).send({ ok: true });
        },
      });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => app?.close());

  const inject = (url: string, headers: Record<string, string> = {}) =>
    app.getHttpAdapter().getInstance().inject({ method: 'GET', url, headers });

  it('logs a credential passed in a query string as [REDACTED], keeping the rest of the URL', async () => {
    const token = `ghp_${'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5'.slice(0, 36)}`;
    const res = await inject(`/things/7?project=${token}&limit=5`, { 'x-request-id': 'trace-token-1' });
    expect(res.statusCode).toBe(200);
    const logged = JSON.stringify(
      lines.filter((l) => (l.req as { id?: string } | undefined)?.id === 'trace-token-1'),
    );
    expect(logged).not.toContain(token);
    expect(logged).toContain('/things/7?project=[REDACTED]&limit=5');
  });

  it('logs each request once with its inbound id, redacting credentials and never the body', async () => {
    const res = await inject('/things/42', {
      'x-request-id': 'trace-abc-1',
      authorization: 'Bearer msk_secret',
      cookie: 'session=s3cret',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toBe('trace-abc-1');

    const completedLines = lines.filter(
      (l) => l.msg === 'request completed' && (l.req as { id: string }).id === 'trace-abc-1',
    );
    expect(completedLines).toHaveLength(1);
    const completed = completedLines[0];
    const req = completed?.req as { headers: Record<string, string>; url: string };
    expect(completed?.name).toBe('test-api');
    expect(req.url).toBe('/things/42');
    expect(req.headers.authorization).toBe(REDACTED);
    expect(req.headers.cookie).toBe(REDACTED);
    expect(req).not.toHaveProperty('body');

    const loaded = lines.find((l) => l.msg === 'loaded' && (l.req as { id: string }).id === 'trace-abc-1');
    expect(loaded?.user).toEqual({ password: REDACTED, api_key: REDACTED });
    expect(loaded?.memory).toEqual({ content: 'visible' });
    expect((loaded?.req as { id: string }).id).toBe('trace-abc-1');
    expect(JSON.stringify(lines)).not.toMatch(/msk_secret|s3cret|hunter2/);
  });

  it('logs the id it answers in X-Request-Id when the caller sent none, and the key the request used', async () => {
    const res = await inject('/things/keyed');
    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const line = lines.find((l) => l.msg === 'request completed' && (l.req as { id: string }).id === id);
    expect(line?.keyId).toBe('key-7');
  });

  it('logs the key on the line of a request that failed after authenticating', async () => {
    const res = await inject('/things/keyed-boom');
    expect(res.statusCode).toBe(503);
    const id = res.headers['x-request-id'];
    const line = lines.find((l) => (l.req as { id?: string } | undefined)?.id === id && l.res !== undefined);
    expect(line).toMatchObject({ level: 50, keyId: 'key-7', res: { statusCode: 503 } });
  });

  it('logs a route mounted outside Nest with the same fields, and what it adds', async () => {
    const res = await app
      .getHttpAdapter()
      .getInstance()
      .inject({
        method: 'POST',
        url: '/outside',
        headers: { authorization: 'Bearer msk_outside' },
        payload: { content: 'secret body' },
      });
    expect(res.statusCode).toBe(202);
    const id = res.headers['x-request-id'];
    const line = lines.find((l) => l.msg === 'request completed' && (l.req as { id: string }).id === id);
    expect(line).toMatchObject({
      name: 'test-api',
      keyId: 'key-9',
      mcp: { messages: 1, methods: ['tools/call'], tools: ['memory_store'] },
      res: { statusCode: 202 },
    });
    expect(typeof line?.responseTime).toBe('number');
    expect((line?.req as { headers: Record<string, string> }).headers.authorization).toBe(REDACTED);
    expect(JSON.stringify(line)).not.toMatch(/msk_outside|secret body/);
  });

  it('replaces a malformed inbound id with a generated one', async () => {
    const res = await inject('/things/1', { 'x-request-id': 'bad id with spaces' });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('does not log probe and scrape requests', async () => {
    await inject('/health/ready', { 'x-request-id': 'probe-1' });
    await inject('/metrics', { 'x-request-id': 'scrape-1' });
    await inject('/things/3', { 'x-request-id': 'after-probes' });
    const ids = lines.map((l) => (l.req as { id?: string } | undefined)?.id);
    expect(ids).toContain('after-probes');
    expect(ids).not.toContain('probe-1');
    expect(ids).not.toContain('scrape-1');
  });

  it('logs 5xx responses at error level', async () => {
    await inject('/things/boom', { 'x-request-id': 'trace-boom' });
    const line = lines.find((l) => (l.req as { id?: string } | undefined)?.id === 'trace-boom' && l.res);
    expect(line?.level).toBe(50);
  });

  it('times requests by route template, not raw URL, with default process metrics', async () => {
    await inject('/things/7');
    await inject('/no/such/route/123');
    const text = await registry.metrics();
    expect(text).toMatch(
      new RegExp(
        `${HTTP_REQUEST_DURATION}_count\\{service="test-api",method="GET",route="/things/:id",status_code="200"\\} [1-9]`,
      ),
    );
    expect(text).toMatch(/route="\/things\/:id",status_code="503"/);
    expect(text).toMatch(/route="unmatched",status_code="404"/);
    expect(text).not.toContain('/no/such/route');
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('reuses the histogram when a second server registers on the same registry', () => {
    const first = registry.getSingleMetric(HTTP_REQUEST_DURATION);
    const again = registerHttpMetrics(fastify(), registry);
    expect(again).toBe(first);
  });
});
