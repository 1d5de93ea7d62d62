import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import {
  memoryIdSchema,
  migrateOwnSecretsResponseSchema,
  MigrateOwnSecretsUseCase,
  revealedSecretSchema,
  RevealSecretUseCase,
  type RevealedSecretResponse,
} from '@app/memories';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { ApiRoute } from '../openapi/api-route.decorator';
import { memoryIdParams } from '../openapi/route-schemas';

const SECRET_STORE_UNAVAILABLE =
  'The secret store is sealed, slow or unreachable (Retry-After says when to try again), or none is configured';

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
  // The use case checks `secrets:read` itself, so that refusals are audited too.
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'revealSecret',
    tag: 'secrets',
    summary: 'Reveal the original content of one of your sensitive memories (audited)',
    description:
      'Needs the `secrets:read` scope as well (403 otherwise). The body is ignored (an empty body is ' +
      'fine). A memory without a secret answers its content (`source: "plain"`); a teammate’s memory ' +
      'answers 403, an invisible or deleted one 404. Every reveal and every refusal writes an audit row.',
    params: memoryIdParams,
    response: revealedSecretSchema,
    errors: {
      403: 'The key lacks `secrets:read`, or the memory is a teammate’s',
      404: 'No memory with this id is visible to the caller',
      503: SECRET_STORE_UNAVAILABLE,
    },
  })
  async secret(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<RevealedSecretResponse> {
    return this.reveal.execute(principal, parseInput(memoryIdSchema, id));
  }

  @Post('migrate-secrets')
  @HttpCode(200)
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'migrateOwnSecrets',
    tag: 'secrets',
    summary: 'Move secrets found in your stored memories into the secret store',
    description: 'Screens your memories that are not sensitive yet; safe to run again (moves nothing twice).',
    response: migrateOwnSecretsResponseSchema,
    errors: { 503: SECRET_STORE_UNAVAILABLE },
  })
  async migrateSecrets(@CurrentPrincipal() principal: Principal): Promise<{ migrated: number }> {
    const counts = await this.migrateOwn.execute(principal);
    return { migrated: counts.migrated };
  }
}
