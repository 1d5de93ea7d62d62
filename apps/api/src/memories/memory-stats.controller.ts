import { Controller, Get, Inject, Query } from '@nestjs/common';
import {
  categoriesResponse,
  GetMemoryActivityUseCase,
  memoryActivityQuerySchema,
  memoryActivityResponse,
  presentMemoryActivity,
  GetMemoryStatsUseCase,
  ListMemoryFacetsUseCase,
  memoryStatsResponse,
  presentCategories,
  presentMemoryStats,
  presentTags,
  tagsResponse,
} from '@app/memories';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { ApiRoute } from '../openapi/api-route.decorator';

/** Dashboard counts (claude-memory-mcp's stats, categories and tags) over what the caller can read. */
@Controller()
@RequireScopes('memories:read')
export class MemoryStatsController {
  constructor(
    @Inject(GetMemoryStatsUseCase) private readonly stats: GetMemoryStatsUseCase,
    @Inject(ListMemoryFacetsUseCase) private readonly facets: ListMemoryFacetsUseCase,
    @Inject(GetMemoryActivityUseCase) private readonly activity: GetMemoryActivityUseCase,
  ) {}

  @Get('stats')
  @ApiRoute({
    operationId: 'getMemoryStats',
    tag: 'memories',
    summary:
      'Counts of the memories you can read: total, per category, per importance bucket, recent activity',
    response: memoryStatsResponse,
  })
  async get(@CurrentPrincipal() principal: Principal) {
    return presentMemoryStats(await this.stats.execute(principal));
  }

  @Get('stats/activity')
  @ApiRoute({
    operationId: 'getMemoryActivity',
    tag: 'memories',
    summary: 'Memories you can read created per day, by category and by author',
    query: memoryActivityQuerySchema,
    response: memoryActivityResponse,
  })
  async activityPerDay(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const input = parseInput(memoryActivityQuerySchema, query);
    return presentMemoryActivity(await this.activity.execute(principal, input));
  }

  @Get('categories')
  @ApiRoute({
    operationId: 'listCategories',
    tag: 'memories',
    summary: 'Categories of the memories you can read, with counts',
    response: categoriesResponse,
  })
  async categories(@CurrentPrincipal() principal: Principal) {
    return presentCategories(await this.facets.execute(principal, 'categories'));
  }

  @Get('tags')
  @ApiRoute({
    operationId: 'listTags',
    tag: 'memories',
    summary: 'Tags of the memories you can read, with counts (most used first)',
    response: tagsResponse,
  })
  async tags(@CurrentPrincipal() principal: Principal) {
    return presentTags(await this.facets.execute(principal, 'tags'));
  }
}
