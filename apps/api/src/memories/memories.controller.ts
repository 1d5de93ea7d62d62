import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  BulkDeleteMemoriesUseCase,
  bulkDeleteSchema,
  CreateMemoryUseCase,
  DeleteMemoryUseCase,
  GetMemoryUseCase,
  ImportMemoriesUseCase,
  importMemoriesSchema,
  ListMemoriesUseCase,
  listMemoriesQuerySchema,
  memoryIdSchema,
  PurgeMemoryUseCase,
  RestoreMemoryUseCase,
  storeMemorySchema,
  UpdateMemoryUseCase,
  updateMemorySchema,
  type StoreMemoryBody,
} from '@app/memories';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { idempotencyKeySchema } from './idempotency-key.schema';
import { presentDetail, presentListItem } from './memory.presenter';

const toNewMemory = (body: StoreMemoryBody) => ({
  content: body.content,
  category: body.category,
  tags: body.tags,
  expandedKeywords: body.expanded_keywords,
  importance: body.importance,
  project: body.project ?? null,
  forceSensitive: body.force_sensitive,
});

/** Seed-compatible memory routes. Each method validates, calls one use case, and shapes the answer. */
@Controller('memories')
export class MemoriesController {
  constructor(
    private readonly createMemory: CreateMemoryUseCase,
    private readonly listMemories: ListMemoriesUseCase,
    private readonly getMemory: GetMemoryUseCase,
    private readonly updateMemory: UpdateMemoryUseCase,
    private readonly deleteMemory: DeleteMemoryUseCase,
    private readonly restoreMemory: RestoreMemoryUseCase,
    private readonly purgeMemory: PurgeMemoryUseCase,
    private readonly bulkDelete: BulkDeleteMemoriesUseCase,
    private readonly importMemories: ImportMemoriesUseCase,
  ) {}

  @Post()
  @HttpCode(200)
  @RequireScopes('memories:write')
  store(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey?: string,
  ) {
    const input = toNewMemory(parseInput(storeMemorySchema, body));
    const key = parseInput(idempotencyKeySchema, idempotencyKey, 400);
    return this.createMemory.execute(principal, input, { idempotencyKey: key });
  }

  @Get()
  @RequireScopes('memories:read')
  async list(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const result = await this.listMemories.execute(
      principal,
      parseInput(listMemoriesQuerySchema, query, 400),
    );
    return { memories: result.memories.map(presentListItem), total: result.total };
  }

  @Post('bulk-delete')
  @HttpCode(200)
  @RequireScopes('memories:write')
  bulkDeleteMemories(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const input = parseInput(bulkDeleteSchema, body ?? {});
    return this.bulkDelete.execute(principal, { ...input, dryRun: input.dry_run });
  }

  @Post('import')
  @HttpCode(200)
  @RequireScopes('memories:write')
  importBatch(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.importMemories.execute(principal, parseInput(importMemoriesSchema, body).map(toNewMemory));
  }

  @Get(':id')
  @RequireScopes('memories:read')
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return presentDetail(await this.getMemory.execute(principal, parseInput(memoryIdSchema, id, 400)));
  }

  @Put(':id')
  @RequireScopes('memories:write')
  update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    const patch = parseInput(updateMemorySchema, body ?? {});
    return this.updateMemory.execute(principal, parseInput(memoryIdSchema, id, 400), {
      content: patch.content,
      category: patch.category,
      tags: patch.tags,
      expandedKeywords: patch.expanded_keywords,
      importance: patch.importance,
    });
  }

  @Delete(':id')
  @RequireScopes('memories:write')
  remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.deleteMemory.execute(principal, parseInput(memoryIdSchema, id, 400));
  }

  @Post(':id/restore')
  @HttpCode(200)
  @RequireScopes('memories:write')
  restore(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.restoreMemory.execute(principal, parseInput(memoryIdSchema, id, 400));
  }

  @Delete(':id/purge')
  @RequireScopes('memories:write')
  purge(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.purgeMemory.execute(principal, parseInput(memoryIdSchema, id, 400));
  }
}
