import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CheckMemoryUseCase, checkSchema, RecallMemoriesUseCase, recallSchema } from '@app/memories';
import type { Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { presentRecalled } from './memory.presenter';

/** Finding memories: hybrid recall and the write guard. */
@Controller('memories')
export class MemorySearchController {
  constructor(
    private readonly recallMemories: RecallMemoriesUseCase,
    private readonly checkMemory: CheckMemoryUseCase,
  ) {}

  @Post('recall')
  @HttpCode(200)
  @RequireScopes('memories:read')
  async recall(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const input = parseInput(recallSchema, body);
    const results = await this.recallMemories.execute(principal, {
      context: input.context,
      expandedQuery: input.expanded_query,
      category: input.category,
      tags: input.tags,
      project: input.project,
      since: input.since,
      before: input.before,
      sortBy: input.sort_by,
      limit: input.limit,
    });
    return { memories: results.map((r) => presentRecalled(r, input.explain)) };
  }

  @Post('check')
  @HttpCode(200)
  @RequireScopes('memories:read')
  check(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.checkMemory.execute(principal, parseInput(checkSchema, body).content);
  }
}
