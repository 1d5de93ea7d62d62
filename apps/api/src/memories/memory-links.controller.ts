import { Body, Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import {
  CreateMemoryLinkUseCase,
  createLinkSchema,
  DeleteMemoryLinkUseCase,
  linkParamsSchema,
  memoryIdSchema,
  memoryLinkResponse,
  presentLink,
  presentUnlinked,
  toLinkKey,
  toNewLink,
  unlinkResponse,
} from '@app/memories';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { ApiRoute } from '../openapi/api-route.decorator';
import { memoryIdParams } from '../openapi/route-schemas';

/**
 * Typed links between memories (claude-memory-mcp's ADR-0007 routes). A memory's links are read
 * with the memory itself (`GET /api/memories/{id}`: `links_out`, `links_in`).
 */
@Controller('memories')
export class MemoryLinksController {
  constructor(
    private readonly createLink: CreateMemoryLinkUseCase,
    private readonly deleteLink: DeleteMemoryLinkUseCase,
  ) {}

  @Post(':id/links')
  @HttpCode(200)
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'createMemoryLink',
    tag: 'memories',
    summary: 'Link this memory (src) to another (dst): supersedes, part-of, see-also or resolved-by',
    params: memoryIdParams,
    body: createLinkSchema,
    response: memoryLinkResponse,
    errors: {
      403: 'You can see the source memory but may not change it',
      404: 'Either memory is unknown or not visible to you',
      409: 'The link already exists',
      422: 'Validation failed, a link to itself, or a supersedes cycle',
    },
  })
  async create(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    const srcId = parseInput(memoryIdSchema, id);
    const link = await this.createLink.execute(
      principal,
      toNewLink(srcId, parseInput(createLinkSchema, body)),
    );
    return presentLink(link);
  }

  @Delete(':id/links/:dst/:type')
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'deleteMemoryLink',
    tag: 'memories',
    summary: 'Remove one link from this memory',
    params: linkParamsSchema,
    response: unlinkResponse,
    errors: {
      403: 'You can see the source memory but may not change it',
      404: 'No such link (or memory) visible to you',
    },
  })
  async remove(@CurrentPrincipal() principal: Principal, @Param() params: Record<string, string>) {
    const link = await this.deleteLink.execute(principal, toLinkKey(parseInput(linkParamsSchema, params)));
    return presentUnlinked(link);
  }
}
