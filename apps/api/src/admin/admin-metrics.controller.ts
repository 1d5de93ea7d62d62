import { Controller, Get, Header, Inject } from '@nestjs/common';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { METRICS_REGISTRY, summarizeRouteLatency, type LatencySummary } from '@app/observability';
import { RequireScopes } from '../auth/auth.decorators';
import { ApiRoute } from '../openapi/api-route.decorator';

const RECALL_ROUTE = { method: 'POST', route: '/api/memories/recall' } as const;

const latencyResponse = z.object({
  requests: z.number().int(),
  errors: z.number().int().describe('Answers with a 5xx status'),
  mean_ms: z.number().nullable(),
  p50_ms: z.number().nullable().describe('Estimated from the histogram buckets; null before any request'),
  p95_ms: z.number().nullable(),
  p99_ms: z.number().nullable(),
});

const metricsSummaryResponse = z.object({
  recall: latencyResponse.describe('`POST /api/memories/recall` as this replica served it since it started'),
});

/**
 * The few figures of /metrics the console charts, as JSON behind an admin key: /metrics itself may
 * sit on another port behind a token a browser does not have. Queue depth is in /api/admin/stats.
 */
@Controller('admin/metrics')
@RequireScopes('admin')
export class AdminMetricsController {
  constructor(@Inject(METRICS_REGISTRY) private readonly registry: Registry) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  @ApiRoute({
    operationId: 'getMetricsSummary',
    tag: 'admin',
    summary: 'Recall latency on this replica (the console’s charts)',
    response: metricsSummaryResponse,
  })
  async summary(): Promise<z.infer<typeof metricsSummaryResponse>> {
    return { recall: presentLatency(await summarizeRouteLatency(this.registry, RECALL_ROUTE)) };
  }
}

function presentLatency(summary: LatencySummary): z.infer<typeof latencyResponse> {
  return {
    requests: summary.requests,
    errors: summary.errors,
    mean_ms: summary.meanMs,
    p50_ms: summary.p50Ms,
    p95_ms: summary.p95Ms,
    p99_ms: summary.p99Ms,
  };
}
