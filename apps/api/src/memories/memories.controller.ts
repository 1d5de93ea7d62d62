import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  BulkDeleteMemoriesUseCase,
  bulkDeleteResponse,
  bulkDeleteSchema,
  CreateMemoryUseCase,
  DeleteMemoryUseCase,
  deleteResponse,
  GetMemoryUseCase,
  ImportMemoriesUseCase,
  importMemoriesSchema,
  ListMemoriesUseCase,
  listMemoriesQuerySchema,
  memoryDetailWithLinksResponse,
  memoryIdSchema,
  memoryListResponse,
  purgeResponse,
  PurgeMemoryUseCase,
  restoreResponse,
  RestoreMemoryUseCase,
  storedMemoryResponse,
  presentStored,
  storeMemoryRequestSchema,
  UpdateMemoryUseCase,
  updateMemorySchema,
  updateResponse,
  presentDetail,
  presentLinks,
  presentListItem,
  toMemoryPatch,
  toImportedMemory,
  toNewMemory,
} from '@app/memories';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { ApiRoute } from '../openapi/api-route.decorator';
import { QUOTA_ERRORS } from '../openapi/openapi-helpers';
import { idempotencyHeaders, importResponse, memoryIdParams } from '../openapi/route-schemas';
import { idempotencyKeySchema } from './idempotency-key.schema';

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
  @ApiRoute({
    operationId: 'storeMemory',
    tag: 'memories',
    summary:
      'Store a memory (a memory that already says it, yours or a teammate’s team memory, answers with `duplicate_of`)',
    body: storeMemoryRequestSchema,
    headers: idempotencyHeaders,
    response: storedMemoryResponse,
    errors: {
      403: 'The memory named in `supersedes` is visible to you but not yours to change',
      404: 'The memory named in `supersedes` is unknown or not visible to you',
      422: 'Validation failed, content too large, Idempotency-Key reused with a different body, or `supersedes` would make a cycle',
      ...QUOTA_ERRORS.memories,
    },
  })
  async store(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey?: string,
  ) {
    const input = toNewMemory(parseInput(storeMemoryRequestSchema, body));
    const key = parseInput(idempotencyKeySchema, idempotencyKey, 400);
    return presentStored(await this.createMemory.execute(principal, input, { idempotencyKey: key }));
  }

  @Get()
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'listMemories',
    tag: 'memories',
    summary: "List the caller's memories, most important first",
    query: listMemoriesQuerySchema,
    response: memoryListResponse,
  })
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
  @ApiRoute({
    operationId: 'bulkDeleteMemories',
    tag: 'memories',
    summary: 'Soft-delete memories matching a filter (dry run by default)',
    body: bulkDeleteSchema,
    response: bulkDeleteResponse,
  })
  bulkDeleteMemories(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const input = parseInput(bulkDeleteSchema, body ?? {});
    return this.bulkDelete.execute(principal, { ...input, dryRun: input.dry_run });
  }

  @Post('import')
  @HttpCode(200)
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'importMemories',
    tag: 'memories',
    summary: 'Store a batch of memories in one transaction',
    body: importMemoriesSchema,
    headers: idempotencyHeaders,
    response: importResponse,
    errors: {
      400: 'Malformed request, or more memories than one batch allows',
      422: 'Validation failed (naming the item), or Idempotency-Key reused with a different batch',
      ...QUOTA_ERRORS.memories,
    },
  })
  async importBatch(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey?: string,
  ) {
    const items = parseInput(importMemoriesSchema, body).map(toImportedMemory);
    const key = parseInput(idempotencyKeySchema, idempotencyKey, 400);
    return (await this.importMemories.execute(principal, items, { idempotencyKey: key })).map(presentStored);
  }

  @Get(':id')
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'getMemory',
    tag: 'memories',
    summary: 'Get one memory, with its links',
    params: memoryIdParams,
    response: memoryDetailWithLinksResponse,
  })
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    const memoryId = parseInput(memoryIdSchema, id);
    const { memory, links } = await this.getMemory.withLinks(principal, memoryId);
    return { ...presentDetail(memory), ...presentLinks(memoryId, links) };
  }

  @Put(':id')
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'updateMemory',
    tag: 'memories',
    summary: 'Update fields of a memory',
    params: memoryIdParams,
    body: updateMemorySchema,
    response: updateResponse,
    errors: {
      400: 'Malformed request, or no field to update',
      409: 'Duplicate content',
      413: QUOTA_ERRORS.memories[413],
    },
  })
  update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    const patch = toMemoryPatch(parseInput(updateMemorySchema, body ?? {}));
    return this.updateMemory.execute(principal, parseInput(memoryIdSchema, id), patch);
  }

  @Delete(':id')
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'deleteMemory',
    tag: 'memories',
    summary: 'Soft-delete a memory (repeatable)',
    params: memoryIdParams,
    response: deleteResponse,
  })
  remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.deleteMemory.execute(principal, parseInput(memoryIdSchema, id));
  }

  @Post(':id/restore')
  @HttpCode(200)
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'restoreMemory',
    tag: 'memories',
    summary: 'Undo a soft delete',
    params: memoryIdParams,
    response: restoreResponse,
  })
  restore(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.restoreMemory.execute(principal, parseInput(memoryIdSchema, id));
  }

  @Delete(':id/purge')
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'purgeMemory',
    tag: 'memories',
    summary: 'Permanently remove a soft-deleted memory',
    params: memoryIdParams,
    response: purgeResponse,
    errors: { 409: 'Not deleted yet' },
  })
  purge(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.purgeMemory.execute(principal, parseInput(memoryIdSchema, id));
  }
}
