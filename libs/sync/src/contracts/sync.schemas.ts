import { z } from 'zod';
import type { SyncedMemory, SyncTombstone } from '../domain/sync';

/**
 * `GET /api/memories/sync` query. Three modes, told apart by which parameters are present:
 * `cursor` and/or `limit` → one page of changes; `since` → the seed's time-based delta; nothing →
 * the seed's complete live set. Mixing `since` with paging parameters is an error.
 */
export const syncQuerySchema = z
  .object({
    cursor: z.string().min(1).max(512).optional(),
    limit: z.coerce.number().int().min(1).max(100_000).optional(),
    // Parsed by the use case so a bad value gets its own error code.
    since: z.string().max(64).optional(),
  })
  .refine((q) => q.since === undefined || (q.cursor === undefined && q.limit === undefined), {
    message: 'since cannot be combined with cursor or limit',
  })
  .transform((q) =>
    q.since !== undefined
      ? ({ mode: 'since', since: q.since } as const)
      : q.cursor !== undefined || q.limit !== undefined
        ? ({ mode: 'page', cursor: q.cursor, limit: q.limit } as const)
        : ({ mode: 'full' } as const),
  );

export type SyncQuery = z.output<typeof syncQuerySchema>;
export type SyncPageQuery = Extract<SyncQuery, { mode: 'page' }>;

/** Seed list format plus what an offline copy needs: keywords, deletion time, change number. */
export function presentSyncedMemory(memory: SyncedMemory) {
  return {
    id: memory.id,
    content: memory.content,
    category: memory.category,
    tags: memory.tags.join(','),
    expanded_keywords: memory.expandedKeywords,
    importance: memory.importance,
    project: memory.project,
    is_sensitive: memory.isSensitive,
    owner: memory.owner,
    created_at: memory.createdAt,
    updated_at: memory.updatedAt,
    deleted_at: memory.deletedAt,
    change_seq: memory.changeSeq,
  };
}

export function presentSyncTombstone(tombstone: SyncTombstone) {
  return { id: tombstone.id, deleted_at: tombstone.deletedAt, change_seq: tombstone.changeSeq };
}
