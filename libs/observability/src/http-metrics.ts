import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { HookableFastify } from './hookable-fastify';

export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');
export const HTTP_REQUEST_DURATION = 'http_request_duration_seconds';

/** Label for requests that matched no route, so scanners cannot create one series per URL. */
export const UNMATCHED_ROUTE = 'unmatched';

type HttpLabel = 'method' | 'route' | 'status_code';

interface TimedRequest {
  readonly method: string;
  readonly routeOptions: { readonly url?: string };
}

interface TimedReply {
  readonly statusCode: number;
  readonly elapsedTime: number;
}

/** A registry per process (not prom-client's global one), with the default process metrics. */
export function createMetricsRegistry(labels: Record<string, string> = {}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels(labels);
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * Times every request by method, route template (`/api/memories/:id`, never the raw URL) and
 * status. Call it right after `NestFactory.create`, before `listen`.
 */
export function registerHttpMetrics(
  fastify: HookableFastify<TimedRequest, TimedReply>,
  registry: Registry,
): Histogram<HttpLabel> {
  const histogram = httpDurationHistogram(registry);
  fastify.addHook('onResponse', (request, reply, done) => {
    histogram.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? UNMATCHED_ROUTE,
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
  return histogram;
}

function httpDurationHistogram(registry: Registry): Histogram<HttpLabel> {
  const existing = registry.getSingleMetric(HTTP_REQUEST_DURATION);
  if (existing instanceof Histogram) return existing as Histogram<HttpLabel>;
  return new Histogram<HttpLabel>({
    name: HTTP_REQUEST_DURATION,
    help: 'HTTP request duration in seconds, by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
}
