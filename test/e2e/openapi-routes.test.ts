import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { startApi, type StartedApi } from '../../apps/api/src/main';
import { toOpenApiPath } from '../../apps/api/src/openapi/route-metadata';
import { teamFixture } from '../support/e2e-env';

interface Operation {
  operationId?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string }>;
  responses: Record<string, unknown>;
}
// A type alias, not an interface: the validator wants an object with an index signature.
type Document = {
  paths: Record<string, Record<string, Operation>>;
  tags?: Array<{ name: string }>;
};

const FASTIFY_INIT = 'fastify.initialization';

/**
 * The document against what Fastify really serves, not against a list kept in this test: routes
 * are recorded by an onRoute hook that Fastify's documented diagnostics channel lets us add to the
 * API's own instance before any route exists.
 */
describe('OpenAPI document vs the routes Fastify serves', () => {
  const team = teamFixture({ REDIS_URL: '' });
  const served: Array<{ method: string; url: string }> = [];
  let api: StartedApi;
  let doc: Document;

  const record = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRoute', (route: RouteOptions) => {
      for (const method of [route.method].flat())
        served.push({ method: method.toLowerCase(), url: route.url });
    });
  };

  beforeAll(async () => {
    subscribe(FASTIFY_INIT, record);
    try {
      api = await startApi(loadConfig({ ...team.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error' }));
    } finally {
      unsubscribe(FASTIFY_INIT, record);
    }
    const res = await fetch(`${api.url}/docs/json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as Document;
  });
  afterAll(async () => {
    await api?.stop();
  });

  const apiRoutes = () =>
    served
      .filter(({ url }) => url === '/api' || url.startsWith('/api/'))
      .map(({ method, url }) => ({ method, path: toOpenApiPath(url) }));
  const documented = () =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ method, path, op })),
    );

  it('documents every method of every route served under /api', () => {
    expect(apiRoutes()).toContainEqual({ method: 'get', path: '/api/memories/sync' });
    const missing = apiRoutes()
      // Fastify adds HEAD to every GET by itself; it is documented through the GET.
      .filter(({ method, path }) => !(method === 'head' && doc.paths[path]?.get))
      .filter(({ method, path }) => !doc.paths[path]?.[method])
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(missing).toEqual([]);
  });

  it('lists no route Fastify does not serve', () => {
    const servedKeys = new Set(apiRoutes().map(({ method, path }) => `${method} ${path}`));
    const phantom = documented()
      .map(({ method, path }) => `${method} ${path}`)
      .filter((key) => !servedKeys.has(key));
    expect(phantom).toEqual([]);
  });

  it('gives every operation a unique operationId, a declared tag, path parameters, 429 and 503', () => {
    const declaredTags = new Set(doc.tags?.map((tag) => tag.name));
    const ids = documented().map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { method, path, op } of documented()) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, where).toBeTruthy();
      expect(op.tags?.length, where).toBeGreaterThan(0);
      for (const tag of op.tags ?? []) expect(declaredTags.has(tag), `${where}: tag ${tag}`).toBe(true);
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      expect(declared.sort(), where).toEqual(inPath.sort());
      expect(Object.keys(op.responses), where).toEqual(expect.arrayContaining(['429', '503']));
    }
  });

  it('is a valid OpenAPI document', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('serves Swagger UI at /docs', async () => {
    const res = await fetch(`${api.url}/docs`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('swagger');
  });
});
