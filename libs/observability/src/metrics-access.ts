import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether a scrape may read /metrics: always without METRICS_TOKEN, else only with
 * `Authorization: Bearer <token>` (compared in constant time).
 */
export function metricsScrapeAllowed(authorization: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]), digest(token));
}

/** `GET /metrics` on a plain node:http server (the worker's health port, the API's METRICS_PORT). */
export async function serveMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  options: { readonly registry: Registry; readonly token: string | undefined },
): Promise<void> {
  if (!metricsScrapeAllowed(req.headers.authorization, options.token)) {
    res.writeHead(401, {
      'content-type': 'application/json',
      'www-authenticate': 'Bearer realm="metrics"',
    });
    res.end(
      JSON.stringify({
        detail: 'METRICS_TOKEN is set: send Authorization: Bearer <token>',
        code: 'unauthenticated',
      }),
    );
    return;
  }
  const body = await options.registry.metrics();
  res.writeHead(200, { 'content-type': options.registry.contentType, 'cache-control': 'no-store' });
  res.end(body);
}
