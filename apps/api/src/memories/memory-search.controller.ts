import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  CheckMemoryUseCase,
  checkResponse,
  checkSchema,
  duplicatesQuerySchema,
  duplicatesResponse,
  FindDuplicatesUseCase,
  RecallMemoriesUseCase,
  recallResponse,
  recallSchema,
  presentRecalled,
  toRecallInput,
} from '@app/recall';
import { RecalledTextScreen } from '@app/secrets';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { ApiRoute } from '../openapi/api-route.decorator';

/** Near-duplicate scans a key may start per minute (when a rate limit is configured). */
export const DUPLICATES_PER_MINUTE = 10;

/** Finding memories: hybrid recall, the write guard, near-duplicates. */
@Controller('memories')
export class MemorySearchController {
  constructor(
    private readonly recallMemories: RecallMemoriesUseCase,
    private readonly checkMemory: CheckMemoryUseCase,
    private readonly findDuplicates: FindDuplicatesUseCase,
    private readonly screen: RecalledTextScreen,
  ) {}

  @Post('recall')
  @HttpCode(200)
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'recallMemories',
    tag: 'recall',
    summary: 'Hybrid recall: full-text and vector search fused with RRF, nudged by importance and recency',
    body: recallSchema,
    response: recallResponse,
  })
  async recall(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const input = parseInput(recallSchema, body);
    const results = await this.recallMemories.execute(principal, toRecallInput(input));
    // Agents read recall answers (the hooks inject them): screened again with today's detector rules.
    return { memories: results.map((r) => this.screen.item(presentRecalled(r, input.explain))) };
  }

  @Post('check')
  @HttpCode(200)
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'checkMemory',
    tag: 'recall',
    summary: 'Write guard: is this content new (ADD), close to a memory to update (UPDATE), or known (NOOP)?',
    body: checkSchema,
    response: checkResponse,
  })
  async check(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const checked = await this.checkMemory.execute(principal, parseInput(checkSchema, body).content);
    return checked.match ? { ...checked, match: this.screen.item(checked.match) } : checked;
  }

  @Get('duplicates')
  // A bounded but heavy scan: its own, smaller per-key budget, apart from the general one.
  @RouteConfig({ rateLimit: { max: DUPLICATES_PER_MINUTE, timeWindow: '1 minute', groupId: 'duplicates' } })
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'findDuplicates',
    tag: 'recall',
    summary: "Near-duplicate pairs among the caller's most recent memories (bounded scan)",
    query: duplicatesQuerySchema,
    response: duplicatesResponse,
  })
  duplicates(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    return this.findDuplicates.execute(principal, parseInput(duplicatesQuerySchema, query, 400));
  }
}
