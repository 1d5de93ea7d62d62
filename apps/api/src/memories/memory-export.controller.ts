import { Controller, Get, Query, StreamableFile } from '@nestjs/common';
import {
  ExportMemoriesUseCase,
  exportMemoriesQuerySchema,
  exportResponse,
  toExportInput,
} from '@app/memories';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { ApiRoute } from '../openapi/api-route.decorator';

/** `GET /api/memories/export`: the caller's own memories, streamed. See docs/api.md. */
@Controller('memories')
export class MemoryExportController {
  constructor(private readonly exportMemories: ExportMemoriesUseCase) {}

  @Get('export')
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'exportMemories',
    tag: 'memories',
    summary: 'Export your own memories (streamed JSON, JSON Lines or Markdown)',
    description:
      'Your own memories only (never team or shared ones), with tags, links, shares and timestamps; ' +
      'a sensitive memory carries its redacted text, never the secret. `json` and `jsonl` re-import ' +
      'with POST /api/memories/import (times kept); `markdown` is a document grouped by category. ' +
      'Streamed from one snapshot; ordered by id (markdown: by category, then id).',
    query: exportMemoriesQuerySchema,
    response: exportResponse,
    errors: { 400: 'Bad format, since or include_deleted' },
  })
  async export(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const input = toExportInput(parseInput(exportMemoriesQuerySchema, query, 400));
    const result = await this.exportMemories.execute(principal, input);
    return new StreamableFile(result.stream, {
      type: result.contentType,
      disposition: `attachment; filename="memories.${result.fileExtension}"`,
    });
  }
}
