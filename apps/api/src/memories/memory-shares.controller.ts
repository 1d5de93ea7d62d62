import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ListMySharesUseCase,
  ListSharedWithMeUseCase,
  memoryIdSchema,
  mySharesResponse,
  presentMyShares,
  presentSharedMemory,
  shareMemoryResponse,
  shareMemorySchema,
  ShareMemoryUseCase,
  shareTagResponse,
  shareTagSchema,
  ShareTagUseCase,
  sharedWithMeQuerySchema,
  sharedWithMeResponse,
  shareUserParamSchema,
  unshareMemoryResponse,
  UnshareMemoryUseCase,
  unshareTagResponse,
  unshareTagSchema,
  UnshareTagUseCase,
} from '@app/memories';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { ApiRoute } from '../openapi/api-route.decorator';
import { memoryIdParams, memoryShareParams } from '../openapi/route-schemas';

const NOT_MANAGEABLE = 'The memory is a teammate’s: only its owner (or an admin) may share it';

/** claude-memory-mcp's sharing routes: by memory, by tag, and the two listings. */
@Controller('memories')
export class MemorySharesController {
  constructor(
    private readonly shareMemory: ShareMemoryUseCase,
    private readonly unshareMemory: UnshareMemoryUseCase,
    private readonly shareTag: ShareTagUseCase,
    private readonly unshareTag: UnshareTagUseCase,
    private readonly sharedWithMe: ListSharedWithMeUseCase,
    private readonly myShares: ListMySharesUseCase,
  ) {}

  @Post(':id/share')
  @HttpCode(200)
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'shareMemory',
    tag: 'sharing',
    summary: 'Share one of your memories with a teammate (repeat to change the permission)',
    params: memoryIdParams,
    body: shareMemorySchema,
    response: shareMemoryResponse,
    errors: {
      400: 'Sharing with yourself',
      403: NOT_MANAGEABLE,
      404: 'No such memory visible to the caller, or no such user in the tenant',
    },
  })
  share(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    const input = parseInput(shareMemorySchema, body ?? {});
    return this.shareMemory.execute(principal, parseInput(memoryIdSchema, id), {
      sharedWith: input.shared_with,
      permission: input.permission,
    });
  }

  @Delete(':id/share/:user')
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'unshareMemory',
    tag: 'sharing',
    summary: 'Stop sharing one of your memories with a user (repeatable)',
    params: memoryShareParams,
    response: unshareMemoryResponse,
    errors: { 403: NOT_MANAGEABLE, 404: 'No such memory visible to the caller' },
  })
  unshare(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Param('user') user: string) {
    return this.unshareMemory.execute(
      principal,
      parseInput(memoryIdSchema, id),
      parseInput(shareUserParamSchema, user),
    );
  }

  @Post('share-tag')
  @HttpCode(200)
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'shareTag',
    tag: 'sharing',
    summary: 'Share every memory of yours with a tag, now and later, with a teammate',
    body: shareTagSchema,
    response: shareTagResponse,
    errors: { 400: 'Sharing with yourself', 404: 'No such user in the tenant' },
  })
  shareByTag(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const input = parseInput(shareTagSchema, body ?? {});
    return this.shareTag.execute(principal, {
      tag: input.tag,
      sharedWith: input.shared_with,
      permission: input.permission,
    });
  }

  /** The tag and user come in a JSON body, as claude-memory-mcp's client sends them. */
  @Delete('share-tag')
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'unshareTag',
    tag: 'sharing',
    summary: 'Remove one of your tag sharing rules (JSON body; repeatable)',
    body: unshareTagSchema,
    response: unshareTagResponse,
  })
  unshareByTag(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const input = parseInput(unshareTagSchema, body ?? {});
    return this.unshareTag.execute(principal, { tag: input.tag, sharedWith: input.shared_with });
  }

  @Get('shared-with-me')
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'listSharedWithMe',
    tag: 'sharing',
    summary: 'Teammates’ memories shared with you, directly or by tag (most important first)',
    query: sharedWithMeQuerySchema,
    response: sharedWithMeResponse,
  })
  async listSharedWithMe(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const input = parseInput(sharedWithMeQuerySchema, query ?? {}, 400);
    const memories = await this.sharedWithMe.execute(principal, input);
    return { memories: memories.map(presentSharedMemory) };
  }

  @Get('my-shares')
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'listMyShares',
    tag: 'sharing',
    summary: 'What you share: memory shares and tag rules, newest first',
    response: mySharesResponse,
  })
  async listMyShares(@CurrentPrincipal() principal: Principal) {
    return presentMyShares(await this.myShares.execute(principal));
  }
}
