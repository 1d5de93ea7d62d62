import { Histogram, type Registry } from 'prom-client';
import { HTTP_REQUEST_DURATION } from './http-metrics';

/** One route's request latency as this process has seen it since it started. */
export interface LatencySummary {
  readonly requests: number;
  readonly errors: number;
  readonly meanMs: number | null;
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
  readonly p99Ms: number | null;
}

interface RouteSelector {
  readonly method: string;
  readonly route: string;
}

/**
 * Summarises `http_request_duration_seconds` for one route (every status code together) the way
 * Prometheus's `histogram_quantile` would: linear interpolation inside the bucket holding the
 * quantile, the largest finite bound when it falls in the `+Inf` bucket. `errors` counts 5xx answers.
 */
export async function summarizeRouteLatency(
  registry: Registry,
  selector: RouteSelector,
): Promise<LatencySummary> {
  const metric = registry.getSingleMetric(HTTP_REQUEST_DURATION);
  const empty = { requests: 0, errors: 0, meanMs: null, p50Ms: null, p95Ms: null, p99Ms: null };
  if (!(metric instanceof Histogram)) return empty;
  const { values } = await metric.get();
  const buckets = new Map<number, number>();
  let count = 0;
  let sum = 0;
  let errors = 0;
  for (const sample of values) {
    const { labels } = sample;
    if (labels.method !== selector.method || labels.route !== selector.route) continue;
    if (sample.metricName === `${HTTP_REQUEST_DURATION}_bucket`) {
      const le = labels.le === '+Inf' ? Infinity : Number(labels.le);
      buckets.set(le, (buckets.get(le) ?? 0) + sample.value);
    } else if (sample.metricName === `${HTTP_REQUEST_DURATION}_count`) {
      count += sample.value;
      if (String(labels.status_code).startsWith('5')) errors += sample.value;
    } else if (sample.metricName === `${HTTP_REQUEST_DURATION}_sum`) {
      sum += sample.value;
    }
  }
  if (count === 0) return empty;
  const cumulative = [...buckets.entries()].sort(([a], [b]) => a - b);
  const quantileMs = (q: number) => toMs(histogramQuantile(q, cumulative, count));
  return {
    requests: count,
    errors,
    meanMs: toMs(sum / count),
    p50Ms: quantileMs(0.5),
    p95Ms: quantileMs(0.95),
    p99Ms: quantileMs(0.99),
  };
}

/** `cumulative`: [upper bound in seconds, requests at or below it], ascending, ending with +Inf. */
export function histogramQuantile(
  q: number,
  cumulative: ReadonlyArray<readonly [number, number]>,
  count: number,
): number {
  const rank = q * count;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const [bound, atOrBelow] of cumulative) {
    if (atOrBelow >= rank) {
      if (bound === Infinity) return lowerBound;
      const inBucket = atOrBelow - lowerCount;
      return inBucket === 0 ? bound : lowerBound + ((bound - lowerBound) * (rank - lowerCount)) / inBucket;
    }
    lowerBound = bound;
    lowerCount = atOrBelow;
  }
  return lowerBound;
}

function toMs(seconds: number): number {
  return Math.round(seconds * 100_000) / 100;
}
