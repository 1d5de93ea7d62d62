import { Controller, Get, HttpCode, Post, type Type } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants';
import { MetadataScanner } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '@app/webhooks';
import { AdminController } from '../admin/admin.controller';
import { AdminJobsController } from '../admin/admin-jobs.controller';
import { AdminMetricsController } from '../admin/admin-metrics.controller';
import { AdminKeysController } from '../admin/admin-keys.controller';
import { AdminUsersController } from '../admin/admin-users.controller';
import { AdminWebhooksController } from '../admin/admin-webhooks.controller';
import { EmbeddingsAdminController } from '../admin/embeddings-admin.controller';
import { SecretsAdminController } from '../admin/secrets-admin.controller';
import { AuthCheckController } from '../auth/auth-check.controller';
import { API_PREFIX, UNPREFIXED_PATHS } from '../http/configure-http';
import { MemoriesController } from '../memories/memories.controller';
import { MemoryExportController } from '../memories/memory-export.controller';
import { MemoryLinksController } from '../memories/memory-links.controller';
import { MemorySearchController } from '../memories/memory-search.controller';
import { MemorySecretsController } from '../memories/memory-secrets.controller';
import { MemorySharesController } from '../memories/memory-shares.controller';
import { MemorySyncController } from '../memories/memory-sync.controller';
import { MemoryStatsController } from '../memories/memory-stats.controller';
import { JobsController } from '../jobs/jobs.controller';
import { SessionImportController } from '../sessions/session-import.controller';
import { SessionsController } from '../sessions/sessions.controller';
import { StartupContextController } from '../sessions/startup-context.controller';
import { ApiRoute, API_ROUTE_METADATA } from './api-route.decorator';
import { authCheckResponse } from './route-schemas';
import { buildOpenApiDocument } from './openapi-document';
import { joinRoutePath, toOpenApiPath } from './route-metadata';

/** The controllers mounted under /api (the e2e test checks the running app's full list). */
const API_CONTROLLERS: Type[] = [
  MemoriesController,
  MemoryLinksController,
  MemorySearchController,
  MemorySecretsController,
  MemorySharesController,
  MemorySyncController,
  MemoryExportController,
  MemoryStatsController,
  AdminController,
  AdminUsersController,
  AdminKeysController,
  AdminJobsController,
  AdminMetricsController,
  EmbeddingsAdminController,
  SecretsAdminController,
  AdminWebhooksController,
  AuthCheckController,
  SessionsController,
  SessionImportController,
  JobsController,
  StartupContextController,
];
const mount = { prefix: API_PREFIX, unprefixed: UNPREFIXED_PATHS };
const built = buildOpenApiDocument(API_CONTROLLERS, mount);
const doc = { ...built, paths: built.paths ?? {} };

type Operation = NonNullable<(typeof doc.paths)[string]['get']>;
const operations = (): Array<[string, string, Operation]> =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>).map(([method, op]): [string, string, Operation] => [
      path,
      method,
      op,
    ]),
  );
const schemaOf = (op: Operation | undefined, status: string) =>
  (op?.responses?.[status] as { content: { 'application/json': { schema: Record<string, unknown> } } })
    .content['application/json'].schema;

describe('OpenAPI document built from @ApiRoute metadata', () => {
  it('describes every route handler of the API controllers', () => {
    const scanner = new MetadataScanner();
    const undocumented = API_CONTROLLERS.flatMap((controller) =>
      scanner
        .getAllMethodNames(controller.prototype)
        .map((name) => (controller.prototype as Record<string, object>)[name])
        .filter((handler) => Reflect.getMetadata(METHOD_METADATA, handler) !== undefined)
        .filter((handler) => Reflect.getMetadata(API_ROUTE_METADATA, handler) === undefined)
        .map((handler) => `${controller.name}.${(handler as { name: string }).name}`),
    );
    expect(undocumented).toEqual([]);
    expect(operations()).toHaveLength(69);
  });

  it('takes method and path from Nest, including the sync route the old list missed', () => {
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/memories',
        '/api/memories/{id}',
        '/api/memories/sync',
        '/api/memories/{id}/secret',
        '/api/admin/users/{id}/keys',
        '/api/admin/jobs/{id}',
        '/api/auth-check',
      ]),
    );
    const sync = doc.paths['/api/memories/sync'].get;
    expect(sync?.operationId).toBe('syncMemories');
    expect(sync?.parameters?.map((p) => ('name' in p ? p.name : p.$ref))).toEqual([
      'cursor',
      'limit',
      'since',
    ]);
    expect(Object.keys(sync?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '409', '410']));
  });

  it('gives every operation an operationId, one declared tag, bearer security, 429 and 503', () => {
    const rateLimited = doc.components?.responses?.RateLimited as { headers?: unknown };
    const tags = new Set(doc.tags?.map((tag) => tag.name));
    const ids = operations().map(([, , op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [path, method, op] of operations()) {
      const where = `${method} ${path}`;
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.tags, where).toHaveLength(1);
      expect(tags.has(op.tags?.[0] ?? ''), where).toBe(true);
      expect(op.security, where).toEqual([{ bearer: [] }]);
      // The shared answer, or a sharper wording of it (a quota) with the same headers.
      const limited = op.responses?.['429'] as { $ref?: string; headers?: unknown };
      if (limited.$ref === undefined) expect(limited.headers, where).toEqual(rateLimited.headers);
      else expect(limited, where).toEqual({ $ref: '#/components/responses/RateLimited' });
      expect(op.description, where).toMatch(/Counts against the `(writes|reads|admin|events)` rate limit\./);
      expect(Object.keys(op.responses ?? {}), where).toContain('503');
    }
    expect(doc.servers).toEqual([{ url: '/', description: 'This server' }]);
    expect(rateLimited).toMatchObject({
      headers: {
        'Retry-After': { $ref: '#/components/headers/RetryAfter' },
        'RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
        'RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
        'RateLimit-Reset': { $ref: '#/components/headers/RateLimitReset' },
      },
    });
    expect(doc.paths['/api/sessions/{id}/events'].post?.description).toContain('`events` rate limit');
    expect(doc.paths['/api/memories'].post?.description).toContain('`writes` rate limit');
    expect(doc.paths['/api/memories/recall'].post?.description).toContain('`reads` rate limit');
    expect(doc.paths['/api/admin/users'].get?.description).toContain('`admin` rate limit');
    expect(doc.paths['/api/memories'].post?.responses?.['413']).toMatchObject({
      description: expect.stringContaining('storage_quota_exceeded'),
    });
  });

  it('answers with the status Nest sends and the zod contracts', () => {
    expect(Object.keys(doc.paths['/api/admin/users'].post?.responses ?? {})[0]).toBe('201');
    expect(Object.keys(doc.paths['/api/memories'].post?.responses ?? {})[0]).toBe('200');
    const reindex = doc.paths['/api/admin/embeddings/reindex'].post;
    expect(Object.keys(reindex?.responses ?? {})).toEqual(expect.arrayContaining(['202', '409', '422']));
    expect(reindex?.description).toContain('Requires scope `admin`.');
    expect(Object.keys(schemaOf(doc.paths['/api/admin/jobs/{id}'].get, '200').properties as object)).toEqual(
      expect.arrayContaining(['id', 'kind', 'status', 'progress', 'error', 'created_at', 'finished_at']),
    );
    const transcript = doc.paths['/api/import/claude-code'].post;
    expect(Object.keys(transcript?.responses ?? {})).toEqual(
      expect.arrayContaining(['202', '400', '401', '403', '409', '413', '415', '422']),
    );
    expect(Object.keys((transcript?.requestBody as { content: object }).content)).toEqual([
      'application/x-ndjson',
      'application/jsonl',
    ]);
    // Any key reads its own jobs: no scope note, no 403.
    const job = doc.paths['/api/jobs/{id}'].get;
    expect(Object.keys(job?.responses ?? {})).toEqual(expect.arrayContaining(['200', '401', '404']));
    expect(Object.keys(job?.responses ?? {})).not.toContain('403');
    const body = doc.paths['/api/memories'].post?.requestBody as {
      content: { 'application/json': { schema: { properties: object; required?: string[] } } };
    };
    expect(Object.keys(body.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['content', 'category', 'tags', 'importance']),
    );
    expect(body.content['application/json'].schema.required).toEqual(['content']);
    const reveal = doc.paths['/api/memories/{id}/secret'].post?.responses ?? {};
    expect(Object.keys(reveal)).toEqual(expect.arrayContaining(['200', '403', '404', '503']));
    expect(reveal['503']).toMatchObject({ description: expect.stringContaining('secret store') });
  });

  it('refuses a route without a Nest method decorator and a reused operationId', () => {
    const described = {
      operationId: 'checkAuth',
      tag: 'auth',
      summary: 's',
      response: authCheckResponse,
    } as const;
    @Controller('x')
    class NoMethod {
      @ApiRoute(described)
      handler() {}
    }
    expect(() => buildOpenApiDocument([NoMethod], mount)).toThrow(/no single-method route decorator/);
    @Controller('y')
    class Twice {
      @Post()
      @HttpCode(200)
      @ApiRoute(described)
      handler() {}
    }
    expect(() => buildOpenApiDocument([AuthCheckController, Twice], mount)).toThrow(
      /operationId checkAuth is declared by both/,
    );
  });

  it('mounts like Nest: prefix, unprefixed paths, `:param` to `{param}`', () => {
    expect(joinRoutePath('/', '/', mount)).toBe('/api');
    expect(joinRoutePath('health', 'live', mount)).toBe('/health/live');
    expect(toOpenApiPath(joinRoutePath('admin', 'users/:id/keys', mount))).toBe('/api/admin/users/{id}/keys');
    @Controller('z')
    class Plain {
      @Get('b/:name')
      @ApiRoute({ operationId: 'plain', tag: 'auth', summary: 's', response: authCheckResponse })
      handler() {}
    }
    expect(Object.keys(buildOpenApiDocument([Plain], mount).paths ?? {})).toEqual(['/api/z/b/{name}']);
  });
});

describe('the webhooks section', () => {
  it('documents every event with its signature headers and its body, without content', () => {
    const webhooks = built.webhooks ?? {};
    expect(Object.keys(webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    const created = webhooks['memory.created'].post;
    expect(created?.parameters?.map((p) => ('name' in p ? p.name : ''))).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
    const body = (
      created?.requestBody as { content: Record<string, { schema: { properties: Record<string, unknown> } }> }
    ).content['application/json'].schema;
    expect(body.properties.type).toMatchObject({ enum: ['memory.created'] });
    expect(
      Object.keys((body.properties.data as { properties: Record<string, unknown> }).properties),
    ).not.toContain('content');
    expect(built.openapi).toBe('3.1.0');
    expect(built.tags?.map((t) => t.name)).toContain('webhooks');
  });
});
