import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { CONSOLE_CSP, consoleBuildDir } from '../../apps/api/src/http/web-console';
import { startApi, type StartedApi } from '../../apps/api/src/main';
import { teamFixture } from '../support/e2e-env';

/** The console's static build as the API serves it at /ui (built by `npm run build` into dist/ui). */
describe('web console at /ui', () => {
  // A tight read budget: the console's files must not draw on it.
  const team = teamFixture({ REDIS_URL: '', RATE_LIMIT_PER_MINUTE: '3' });
  let api: StartedApi;
  let script: string;

  beforeAll(async () => {
    const dir = consoleBuildDir();
    expect(dir, 'dist/ui is missing: run npm run build').toBeDefined();
    script = readdirSync(join(dir!, 'assets')).find((name) => name.endsWith('.js'))!;
    api = await startApi(loadConfig({ ...team.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error' }));
  });
  afterAll(async () => {
    await api?.stop();
  });

  const fetchUi = (path: string) => fetch(`${api.url}${path}`, { redirect: 'manual' });

  it('serves the page without a key, under a strict CSP, never cached', async () => {
    for (const path of ['/ui', '/ui/']) {
      const res = await fetchUi(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
    expect(CONSOLE_CSP).toContain("default-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
  });

  it('loads only its own scripts and styles: no inline script, nothing from another origin', async () => {
    const html = await (await fetchUi('/ui/')).text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src="\/ui\/assets\/[^"]+\.js"/);
      expect(body.trim()).toBe('');
    }
    expect(html).not.toMatch(/<style\b|style="|https?:\/\//);
  });

  it('answers the page for any client route, so a reload keeps the view', async () => {
    const res = await fetchUi('/ui/memories/42');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<div id="app"></div>');
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
  });

  it('caches hashed assets for a year and answers 404 for unknown or escaping ones', async () => {
    const asset = await fetchUi(`/ui/assets/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect((await fetchUi('/ui/assets/nothing-here.js')).status).toBe(404);
    const escaping = await fetchUi('/ui/assets/..%2f..%2f..%2fpackage.json');
    expect(escaping.status).not.toBe(200);
    expect(await escaping.text()).not.toContain('"dependencies"');
  });

  it('does not count its files against the rate limits', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await fetchUi(i % 2 ? '/ui/' : `/ui/assets/${script}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    }
  });

  it('leaves /api as it was: a key is still needed there', async () => {
    expect((await fetchUi('/api/memories')).status).toBe(401);
    expect((await fetchUi('/api/memories')).headers.get('content-security-policy')).toBeNull();
  });
});
