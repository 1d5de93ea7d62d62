import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import {
  memoryIdSchema,
  MigrateOwnSecretsUseCase,
  RevealSecretUseCase,
  type RevealedSecretResponse,
} from '@app/memories';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';

/** The audited reveal of a sensitive memory and the seed's per-user secret migration. */
@Controller('memories')
export class MemorySecretsController {
  constructor(
    private readonly reveal: RevealSecretUseCase,
    private readonly migrateOwn: MigrateOwnSecretsUseCase,
  ) {}

  /** Body is ignored (an empty body with Content-Type: application/json is accepted). */
  @Post(':id/secret')
  @HttpCode(200)
  @RequireScopes('secrets:read')
  async secret(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<RevealedSecretResponse> {
    return this.reveal.execute(principal, parseInput(memoryIdSchema, id, 400));
  }

  @Post('migrate-secrets')
  @HttpCode(200)
  @RequireScopes('memories:write')
  async migrateSecrets(@CurrentPrincipal() principal: Principal): Promise<{ migrated: number }> {
    const counts = await this.migrateOwn.execute(principal);
    return { migrated: counts.migrated };
  }
}
