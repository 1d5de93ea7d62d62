import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  agentContextParamsSchema,
  agentContextQuerySchema,
  agentContextResponse,
  presentAgentContext,
  RenderAgentContextUseCase,
} from '@app/memories';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { ApiRoute } from '../openapi/api-route.decorator';

/** A project's team knowledge as the rule file an agent reads (AGENTS.md, CLAUDE.md, a Cursor rule). */
@Controller('projects')
export class ProjectContextController {
  constructor(private readonly renderAgentContext: RenderAgentContextUseCase) {}

  @Get(':project/agent-context')
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'renderAgentContext',
    tag: 'memories',
    summary:
      'Render the project’s pinned memories, decisions, corrections and conventions (team-visible, current heads) as AGENTS.md, CLAUDE.md or a Cursor rule',
    params: agentContextParamsSchema,
    query: agentContextQuerySchema,
    response: agentContextResponse,
    errors: { 422: 'An unknown format or an invalid project' },
  })
  async render(
    @CurrentPrincipal() principal: Principal,
    @Param('project') project: string,
    @Query() query: unknown,
  ) {
    const { project: identity } = parseInput(agentContextParamsSchema, { project });
    const { format } = parseInput(agentContextQuerySchema, query ?? {});
    return presentAgentContext(
      await this.renderAgentContext.execute(principal, { project: identity, format }),
    );
  }
}
