import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import {
  CheckMemoryUseCase,
  checkSchema,
  duplicatesQuerySchema,
  FindDuplicatesUseCase,
  RecallMemoriesUseCase,
  recallSchema,
} from '@app/recall';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { presentRecalled } from './memory.presenter';

/** Finding memories: hybrid recall, the write guard, near-duplicates. */
@Controller('memories')
export class MemorySearchController {
  constructor(
    private readonly recallMemories: RecallMemoriesUseCase,
    private readonly checkMemory: CheckMemoryUseCase,
    private readonly findDuplicates: FindDuplicatesUseCase,
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

  @Get('duplicates')
  @RequireScopes('memories:read')
  duplicates(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    return this.findDuplicates.execute(principal, parseInput(duplicatesQuerySchema, query, 400));
  }
}
