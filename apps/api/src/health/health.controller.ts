import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, type HealthCheckResult } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.decorators';
import { DatabaseHealthIndicator, RedisHealthIndicator } from './dependency-health.indicators';
import { ShutdownState } from './shutdown-state';

export type ReadinessBody = HealthCheckResult & { detail?: string; code?: string };

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

  /** Readiness: database (and Redis where used) answer, and the process is not shutting down. */
  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<ReadinessBody> {
    const checks = [
      async () => {
        const session = this.indicators.check('lifecycle');
        return this.shutdown.isShuttingDown ? session.down({ message: 'shutting down' }) : session.up();
      },
      () => this.database.check(),
      ...(this.redis.enabled ? [() => this.redis.check()] : []),
    ];
    try {
      return await this.health.check(checks);
    } catch (error) {
      // Answer the probe body directly: the global error filter would flatten it to {detail, code}.
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const body = error.getResponse() as HealthCheckResult;
      void reply.status(503);
      return { ...body, detail: `not ready: ${Object.keys(body.error ?? {}).join(', ')}`, code: 'not_ready' };
    }
  }
}
