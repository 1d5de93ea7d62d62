import { describe, expect, it } from 'vitest';
import { createMetricsRegistry, registerHttpMetrics } from './http-metrics';
import { histogramQuantile, summarizeRouteLatency } from './latency-summary';

type Hook = (request: unknown, reply: unknown, done: () => void) => void;

/** A registry whose histogram has seen the given answers, timed as the API's onResponse hook does. */
function registryWith(answers: Array<{ route: string; status: number; ms: number; method?: string }>) {
  const registry = createMetricsRegistry();
  let hook: Hook = () => undefined;
  registerHttpMetrics({ addHook: (_name: string, fn: Hook) => (hook = fn) } as never, registry);
  for (const { route, status, ms, method = 'POST' } of answers) {
    hook({ method, routeOptions: { url: route } }, { statusCode: status, elapsedTime: ms }, () => undefined);
  }
  return registry;
}

describe('summarizeRouteLatency', () => {
  const recall = { method: 'POST', route: '/api/memories/recall' };

  it('answers no figures for a route nobody called', async () => {
    const summary = await summarizeRouteLatency(registryWith([]), recall);
    expect(summary).toEqual({ requests: 0, errors: 0, meanMs: null, p50Ms: null, p95Ms: null, p99Ms: null });
  });

  it('counts only the selected route and method, every status together, 5xx as errors', async () => {
    const registry = registryWith([
      { route: '/api/memories/recall', status: 200, ms: 20 },
      { route: '/api/memories/recall', status: 200, ms: 40 },
      { route: '/api/memories/recall', status: 503, ms: 3 },
      { route: '/api/memories/recall', status: 200, ms: 900, method: 'GET' },
      { route: '/api/memories', status: 200, ms: 900 },
    ]);
    const summary = await summarizeRouteLatency(registry, recall);
    expect(summary.requests).toBe(3);
    expect(summary.errors).toBe(1);
    expect(summary.meanMs).toBeCloseTo(21, 5);
  });

  it('places the quantiles inside the buckets that hold them', async () => {
    const fast = Array.from({ length: 90 }, () => ({ route: recall.route, status: 200, ms: 7 }));
    const slow = Array.from({ length: 10 }, () => ({ route: recall.route, status: 200, ms: 300 }));
    const summary = await summarizeRouteLatency(registryWith([...fast, ...slow]), recall);
    // 7 ms requests fall in the 5–10 ms bucket, 300 ms ones in 250–500 ms.
    expect(summary.p50Ms).toBeGreaterThan(5);
    expect(summary.p50Ms).toBeLessThanOrEqual(10);
    expect(summary.p95Ms).toBeGreaterThan(250);
    expect(summary.p95Ms).toBeLessThanOrEqual(500);
  });
});

describe('histogramQuantile', () => {
  it('interpolates linearly inside a bucket', () => {
    expect(
      histogramQuantile(
        0.5,
        [
          [1, 0],
          [2, 10],
          [Infinity, 10],
        ],
        10,
      ),
    ).toBeCloseTo(1.5, 10);
  });

  it('answers the largest finite bound for a quantile in the +Inf bucket', () => {
    expect(
      histogramQuantile(
        0.99,
        [
          [1, 5],
          [2, 5],
          [Infinity, 10],
        ],
        10,
      ),
    ).toBe(2);
  });
});
