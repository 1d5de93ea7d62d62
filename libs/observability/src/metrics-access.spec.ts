import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILD_INFO_METRIC, readBuildInfo, registerBuildInfo } from './build-info';
import { metricsScrapeAllowed, serveMetrics } from './metrics-access';

describe('metricsScrapeAllowed', () => {
  it('lets every scrape in without a token, and only the bearer of the token with one', () => {
    expect(metricsScrapeAllowed(undefined, undefined)).toBe(true);
    expect(metricsScrapeAllowed(undefined, 'the-token-0123456789')).toBe(false);
    expect(metricsScrapeAllowed('Bearer the-token-0123456789', 'the-token-0123456789')).toBe(true);
    expect(metricsScrapeAllowed('bearer the-token-0123456789', 'the-token-0123456789')).toBe(true);
    expect(metricsScrapeAllowed('Bearer the-token-012345678', 'the-token-0123456789')).toBe(false);
    expect(metricsScrapeAllowed('Basic the-token-0123456789', 'the-token-0123456789')).toBe(false);
  });
});

describe('serveMetrics (the worker health port, the API METRICS_PORT)', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it('answers 401 with WWW-Authenticate without the token, the exposition with it', async () => {
    const registry = new Registry();
    registerBuildInfo(registry, readBuildInfo({ build: { commit: 'deadbeef' } }));
    server = createServer(
      (req, res) => void serveMetrics(req, res, { registry, token: 'the-token-0123456789' }),
    );
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    const refused = await fetch(url);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await refused.json()).toMatchObject({ code: 'unauthenticated' });
    const scraped = await fetch(url, { headers: { authorization: 'Bearer the-token-0123456789' } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toMatch(
      new RegExp(`^${BUILD_INFO_METRIC}\\{.*commit="deadbeef".*\\} 1$`, 'm'),
    );
  });
});
