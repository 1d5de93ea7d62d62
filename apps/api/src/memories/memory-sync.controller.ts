import { Controller, Get, Query, StreamableFile } from '@nestjs/common';
import {
  presentSyncedMemory,
  presentSyncTombstone,
  SyncMemoryChangesUseCase,
  syncQuerySchema,
  SyncSeedDumpUseCase,
  syncResponse,
} from '@app/sync';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { ApiRoute } from '../openapi/api-route.decorator';

/**
 * `GET /api/memories/sync`: with `cursor`/`limit`, one page of changes; otherwise the seed's
 * contract (complete live set, or `since` delta), streamed. See docs/sync.md.
 */
@Controller('memories')
export class MemorySyncController {
  constructor(
    private readonly changes: SyncMemoryChangesUseCase,
    private readonly seedDump: SyncSeedDumpUseCase,
  ) {}

  @Get('sync')
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'syncMemories',
    tag: 'sync',
    summary:
      'Pull changes to the memories you can see: a page after a cursor, or the seed contract (streamed)',
    description:
      'With `cursor` and/or `limit`: one page of changes to every memory you can see (your own, ' +
      "the team's, those shared with you; admin keys: the tenant's), memories and tombstones in " +
      'change_seq order, and `has_more`. Without parameters: your own complete live set; with ' +
      '`since`: every own row changed since then, deleted ones included. Both seed answers are ' +
      'streamed and never paginated. `since` cannot be combined with `cursor`/`limit`. See docs/sync.md.',
    query: syncQuerySchema,
    response: syncResponse,
    errors: {
      400: 'Bad cursor (invalid_cursor: re-seed), bad since (invalid_since), or since mixed with paging',
      409: 'Your history was reset (epoch_changed): re-seed',
      410: 'Cursor older than the retained deletion history (full_resync_required): re-seed',
    },
  })
  async sync(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const input = parseInput(syncQuerySchema, query, 400);
    if (input.mode !== 'page') {
      const stream = await this.seedDump.execute(principal, {
        since: input.mode === 'since' ? input.since : undefined,
      });
      return new StreamableFile(stream, { type: 'application/json; charset=utf-8' });
    }
    const page = await this.changes.execute(principal, { cursor: input.cursor, limit: input.limit });
    return {
      memories: page.memories.map(presentSyncedMemory),
      tombstones: page.tombstones.map(presentSyncTombstone),
      next_cursor: page.nextCursor,
      has_more: page.hasMore,
      server_time: page.serverTime,
    };
  }
}
