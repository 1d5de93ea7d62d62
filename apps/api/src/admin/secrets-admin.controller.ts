import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { secretMigrationBodySchema, StartSecretMigrationUseCase } from '@app/memories';
import { parseInput, type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';

/** Starts the secret migration of the caller's tenant; progress at `GET /api/admin/jobs/:id`. */
@Controller('admin')
@RequireScopes('admin')
export class SecretsAdminController {
  constructor(@Inject(StartSecretMigrationUseCase) private readonly start: StartSecretMigrationUseCase) {}

  @Post('secrets/migrate')
  @HttpCode(202)
  async migrate(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
  ): Promise<{ job_id: string }> {
    const input = parseInput(secretMigrationBodySchema, body ?? {});
    const job = await this.start.execute(principal, { tenant: input.tenant, dryRun: input.dry_run });
    return { job_id: job.id };
  }
}
