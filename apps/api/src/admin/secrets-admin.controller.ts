import { Body, Controller, HttpCode, Inject, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import {
  secretMigrationBodySchema,
  secretMigrationResponseSchema,
  StartSecretMigrationUseCase,
} from '@app/memories';
import { parseInput, type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { ApiRoute } from '../openapi/api-route.decorator';
import { adminJobLocation } from './admin-jobs.controller';

/** Starts the secret migration of the caller's tenant; progress at `GET /api/admin/jobs/:id`. */
@Controller('admin')
@RequireScopes('admin')
export class SecretsAdminController {
  constructor(@Inject(StartSecretMigrationUseCase) private readonly start: StartSecretMigrationUseCase) {}

  @Post('secrets/migrate')
  @HttpCode(202)
  @ApiRoute({
    operationId: 'startSecretMigration',
    tag: 'secrets',
    summary: 'Start the secret migration of your tenant (dry run by default)',
    description:
      'Queues a resumable job that screens every memory of the tenant in batches, moves detected secrets to ' +
      'the secret store and redacts the rows (bumping their sync sequence). Poll GET /api/admin/jobs/{id}: ' +
      'progress has scanned, found, migrated and failed.',
    body: secretMigrationBodySchema,
    response: secretMigrationResponseSchema,
    responseDescription: 'Job queued; `Location` is /api/admin/jobs/{job_id}',
    errors: { 404: 'Unknown tenant' },
  })
  async migrate(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ job_id: string }> {
    const input = parseInput(secretMigrationBodySchema, body ?? {});
    const job = await this.start.execute(principal, { tenant: input.tenant, dryRun: input.dry_run });
    void reply.header('location', adminJobLocation(job.id));
    return { job_id: job.id };
  }
}
