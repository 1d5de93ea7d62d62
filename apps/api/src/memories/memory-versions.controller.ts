import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  DiffMemoryVersionsUseCase,
  diffVersionsQuerySchema,
  GetMemoryVersionUseCase,
  listVersionsQuerySchema,
  ListMemoryVersionsUseCase,
  memoryIdSchema,
  memoryVersionParamsSchema,
  memoryVersionResponse,
  memoryVersionsResponse,
  presentMemoryVersion,
  presentMemoryVersions,
  presentRestoredVersion,
  presentVersionDiff,
  restoreVersionResponse,
  RestoreMemoryVersionUseCase,
  toVersionPage,
  versionDiffResponse,
} from '@app/memories';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { ApiRoute } from '../openapi/api-route.decorator';
import { QUOTA_ERRORS } from '../openapi/openapi-helpers';
import { memoryIdParams } from '../openapi/route-schemas';

const NOT_VISIBLE = 'No such memory visible to you';

/**
 * A memory's version history: every change of its content, tags, category, importance or
 * visibility keeps the state it replaced. Versions are read under the memory's own visibility.
 */
@Controller('memories')
export class MemoryVersionsController {
  constructor(
    private readonly listVersions: ListMemoryVersionsUseCase,
    private readonly getVersion: GetMemoryVersionUseCase,
    private readonly diffVersions: DiffMemoryVersionsUseCase,
    private readonly restoreVersion: RestoreMemoryVersionUseCase,
  ) {}

  @Get(':id/versions')
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'listMemoryVersions',
    tag: 'memories',
    summary: 'Earlier versions of a memory, newest first, with who changed what and when',
    params: memoryIdParams,
    query: listVersionsQuerySchema,
    response: memoryVersionsResponse,
    errors: { 404: NOT_VISIBLE },
  })
  async list(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() query: unknown) {
    const memoryId = parseInput(memoryIdSchema, id);
    const page = toVersionPage(parseInput(listVersionsQuerySchema, query, 400));
    return presentMemoryVersions(memoryId, await this.listVersions.execute(principal, memoryId, page), page);
  }

  @Get(':id/versions/diff')
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'diffMemoryVersions',
    tag: 'memories',
    summary: 'What changed between two versions of a memory, or between one and the current state',
    params: memoryIdParams,
    query: diffVersionsQuerySchema,
    response: versionDiffResponse,
    errors: { 404: `${NOT_VISIBLE}, or no such version` },
  })
  async diff(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() query: unknown) {
    const memoryId = parseInput(memoryIdSchema, id);
    const { from, to } = parseInput(diffVersionsQuerySchema, query, 400);
    return presentVersionDiff(await this.diffVersions.execute(principal, memoryId, from, to));
  }

  @Get(':id/versions/:version')
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'getMemoryVersion',
    tag: 'memories',
    summary: 'One earlier version of a memory',
    params: memoryVersionParamsSchema,
    response: memoryVersionResponse,
    errors: { 404: `${NOT_VISIBLE}, or no such version` },
  })
  async get(@CurrentPrincipal() principal: Principal, @Param() params: Record<string, string>) {
    const { id, version } = parseInput(memoryVersionParamsSchema, params);
    return presentMemoryVersion(await this.getVersion.execute(principal, id, version));
  }

  @Post(':id/versions/:version/restore')
  @HttpCode(200)
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'restoreMemoryVersion',
    tag: 'memories',
    summary:
      'Put an earlier version back: a change like any update (the state it replaces becomes a version)',
    params: memoryVersionParamsSchema,
    response: restoreVersionResponse,
    errors: {
      403: 'You can see the memory but may not change it (or its visibility)',
      404: `${NOT_VISIBLE}, or no such version`,
      409: 'Another memory of the owner has that content, or the version held a secret (not kept in versions)',
      413: QUOTA_ERRORS.memories[413],
    },
  })
  async restore(@CurrentPrincipal() principal: Principal, @Param() params: Record<string, string>) {
    const { id, version } = parseInput(memoryVersionParamsSchema, params);
    return presentRestoredVersion(await this.restoreVersion.execute(principal, id, version));
  }
}
