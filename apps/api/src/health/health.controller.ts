import { Controller, Get, Inject, Res, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, type HealthCheckResult } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.decorators';
import { DatabaseHealthIndicator, RedisHealthIndicator } from './dependency-health.indicators';
import { ShutdownState } from './shutdown-state';
import { REPLICA_READS } from '@app/persistence';
import type { ReplicaRouting } from './replica-metrics';

export type ReadinessBody = HealthCheckResult & {
  detail?: string;
  code?: string;
  /** Dependencies that are down without making the API unready (Redis, every read replica). */
  degraded?: string[];
};

/** What the API does when no read replica is in rotation. */
const REPLICAS_DOWN_IMPACT = 'every read goes to the primary';

/** What the API does without Redis, said where the probe body reports it down. */
const REDIS_DOWN_IMPACT =
  'writes still commit (their jobs wait in the outbox until Redis is back); rate limits are not enforced';

/** Probe endpoints, outside the `/api` prefix and without authentication. */
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: DatabaseHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly shutdown: ShutdownState,
    @Inject(REPLICA_READS) private readonly replicas: ReplicaRouting,
  ) {}

  /** The seed contract: exactly `{"status":"ok"}`, touching nothing, so it stays cheap. */
  @Get()
  status(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Liveness: the event loop answers. Dependencies are left out so an outage never restarts pods. */
  @Get('live')
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /**
   * Readiness: the database answers and the process is not shutting down. Redis (where used) is
   * reported, not required: without it writes still commit through the outbox, so a Redis outage
   * answers 200 with Redis listed under `degraded` (alert on `memsvc_dependency_up` instead).
   */
  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<ReadinessBody> {
    const checks = [
      async () => {
        const session = this.indicators.check('lifecycle');
        return this.shutdown.isShuttingDown ? session.down({ message: 'shutting down' }) : session.up();
      },
      () => this.database.check(),
    ];
    const redis = this.redis.enabled ? this.redis.check() : undefined;
    try {
      return this.withReplicas(await this.withRedis(await this.health.check(checks), redis));
    } catch (error) {
      // Answer the probe body directly: the global error filter would flatten it to {detail, code}.
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const body = error.getResponse() as HealthCheckResult;
      void reply.status(503);
      return { ...body, detail: `not ready: ${Object.keys(body.error ?? {}).join(', ')}`, code: 'not_ready' };
    }
  }

  private async withRedis(
    result: ReadinessBody,
    redis: ReturnType<RedisHealthIndicator['check']> | undefined,
  ): Promise<ReadinessBody> {
    const state = (await redis)?.redis;
    if (!state) return result;
    if (state.status === 'up') {
      return {
        ...result,
        info: { ...result.info, redis: state },
        details: { ...result.details, redis: state },
      };
    }
    const degraded = { ...state, impact: REDIS_DOWN_IMPACT };
    return { ...result, details: { ...result.details, redis: degraded }, degraded: ['redis'] };
  }

  /**
   * Read replicas are reported, not required: with none in rotation every read goes to the
   * primary, so the API stays ready and lists them under `degraded`.
   */
  private withReplicas(result: ReadinessBody): ReadinessBody {
    if (!this.replicas) return result;
    const replicas = this.replicas.reads.status();
    const up = replicas.some((r) => r.inRotation);
    const state = {
      status: up ? ('up' as const) : ('down' as const),
      replicas,
      ...(up ? {} : { impact: REPLICAS_DOWN_IMPACT }),
    };
    return {
      ...result,
      ...(up ? { info: { ...result.info, database_replicas: state } } : {}),
      details: { ...result.details, database_replicas: state },
      ...(up ? {} : { degraded: [...(result.degraded ?? []), 'database_replicas'] }),
    };
  }
}
