import { Controller, Get, Query, StreamableFile } from '@nestjs/common';
import {
  presentSyncedMemory,
  presentSyncTombstone,
  SyncMemoryChangesUseCase,
  syncQuerySchema,
  SyncSeedDumpUseCase,
} from '@app/sync';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';

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
