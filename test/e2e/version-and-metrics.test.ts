import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { startApi, type StartedApi } from '../../apps/api/src/main';
import { teamFixture } from '../support/e2e-env';
import { freePort, ROOT } from '../support/processes';

const TOKEN = 'scrape-token-0123456789abcdef';
const version = (JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

const start = (env: Record<string, string>) =>
  startApi(
    loadConfig({
      ...teamFixture({ REDIS_URL: '' }).env,
      ...env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
    }),
  );

describe('/version and the build_info metric', () => {
  let api: StartedApi;
  beforeAll(async () => {
    api = await start({ BUILD_COMMIT: 'abc1234' });
  });
  afterAll(async () => api?.stop());

  it('answers which build runs, without a key', async () => {
    const res = await fetch(`${api.url}/version`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      version,
      commit: 'abc1234',
      node: process.versions.node,
      built_at: expect.toSatisfy((v: unknown) => v === null || !Number.isNaN(Date.parse(String(v)))),
    });
  });

  it('labels memsvc_build_info with the same version, commit and Node.js version', async () => {
    const text = await (await fetch(`${api.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('memsvc_build_info{'));
    expect(line).toBeDefined();
    expect(line).toContain(`version="${version}"`);
    expect(line).toContain('commit="abc1234"');
    expect(line).toContain(`node="${process.versions.node}"`);
    expect(line).toMatch(/\} 1$/);
  });
});

describe('/metrics on METRICS_PORT behind METRICS_TOKEN', () => {
  let api: StartedApi;
  let metricsUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}`;
    api = await start({ METRICS_PORT: String(port), METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => api?.stop());

  it('is not served on the public port', async () => {
    const res = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'not_found' });
  });

  it('answers only a scrape with the token, and only /metrics', async () => {
    const anonymous = await fetch(`${metricsUrl}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await anonymous.json()).toMatchObject({ code: 'unauthenticated' });
    const wrong = await fetch(`${metricsUrl}/metrics`, {
      headers: { authorization: 'Bearer not-the-token' },
    });
    expect(wrong.status).toBe(401);
    const scrape = await fetch(`${metricsUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toContain('memsvc_build_info{');
    expect((await fetch(`${metricsUrl}/api/memories`)).status).toBe(404);
  });

  it('keeps the public API where it was', async () => {
    expect((await fetch(`${api.url}/health`)).status).toBe(200);
  });
});

describe('METRICS_TOKEN on the public port', () => {
  let api: StartedApi;
  beforeAll(async () => {
    api = await start({ METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => api?.stop());

  it('answers 401 {detail, code} without the token and the metrics with it', async () => {
    const anonymous = await fetch(`${api.url}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await anonymous.json()).toMatchObject({ code: 'unauthenticated', detail: expect.any(String) });
    const scrape = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toContain('http_request_duration_seconds');
  });
});
