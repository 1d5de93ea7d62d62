import { Controller, Get, Query } from '@nestjs/common';
import {
  presentStartupContext,
  StartupContextUseCase,
  startupContextQuerySchema,
  startupContextResponse,
  toStartupContextInput,
} from '@app/sessions';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { ApiRoute } from '../openapi/api-route.decorator';

/** The block a coding-agent session starts with (hooks inject it; MCP's startup_context answers the same). */
@Controller('context')
export class StartupContextController {
  constructor(private readonly startupContext: StartupContextUseCase) {}

  @Get('startup')
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'getStartupContext',
    tag: 'sessions',
    summary:
      'Startup context: pinned memories first, then requested and important memories, recent decisions and corrections, last session summaries, within a character and a token budget',
    query: startupContextQuerySchema,
    response: startupContextResponse,
    errors: {
      422: 'budget or tokens is not a whole number within the allowed range, or project is too long',
    },
  })
  async get(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const input = toStartupContextInput(parseInput(startupContextQuerySchema, query ?? {}));
    return presentStartupContext(await this.startupContext.execute(principal, input));
  }
}
