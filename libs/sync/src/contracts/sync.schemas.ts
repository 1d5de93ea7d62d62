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

// Answer shapes of `GET /api/memories/sync` (docs/sync.md); the presenters below produce them.
const changeSeq = z
  .number()
  .int()
  .describe('Position of the change in the feed: never decreases; changes made together share it');

export const syncedMemoryResponse = z.object({
  id: z.number().int(),
  content: z.string(),
  category: z.string(),
  tags: z.string().describe('comma-separated'),
  expanded_keywords: z.string(),
  importance: z.number(),
  project: z.string().nullable(),
  is_sensitive: z.boolean(),
  visibility: z.enum(['team', 'private']),
  owner: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  deleted_at: z.string().nullable().describe('set: soft-deleted (a later change may restore it)'),
  change_seq: changeSeq,
  review_state: z
    .enum(['proposed', 'rejected'])
    .optional()
    .describe(
      'present on a proposal waiting for review (not in force: recall does not serve it) and on a rejected one',
    ),
});

export const syncTombstoneResponse = z
  .object({
    id: z.number().int(),
    deleted_at: z.string().describe('when it left your view'),
    change_seq: changeSeq,
  })
  .describe('A memory you can no longer see (purged, unshared, made private, …): drop the id');

const cursorFields = {
  next_cursor: z.string().describe('Pass back as `cursor`; store it only after applying the answer'),
  server_time: z.string().describe('Read before the rows'),
  tombstones: z.array(syncTombstoneResponse),
  memories: z.array(syncedMemoryResponse),
};

/** `cursor` and/or `limit`: one page of changes, both lists together in change_seq order, one item per memory. */
export const syncPageResponse = z
  .object({ ...cursorFields, has_more: z.boolean() })
  .describe('One page of changes (cursor and/or limit)');

/** No parameters (complete live set) or `since` (delta): streamed, never paginated. */
export const syncSeedResponse = z
  .object(cursorFields)
  .describe('Seed contract, streamed: the complete live set, or changes since `since`');

export const syncResponse = z.union([syncPageResponse, syncSeedResponse]);

/** Seed list format plus what an offline copy needs: keywords, deletion time, change number. */
export function presentSyncedMemory(memory: SyncedMemory): z.infer<typeof syncedMemoryResponse> {
  return {
    id: memory.id,
    content: memory.content,
    category: memory.category,
    tags: memory.tags.join(','),
    expanded_keywords: memory.expandedKeywords,
    importance: memory.importance,
    project: memory.project,
    is_sensitive: memory.isSensitive,
    visibility: memory.visibility,
    owner: memory.owner,
    created_at: memory.createdAt,
    updated_at: memory.updatedAt,
    deleted_at: memory.deletedAt,
    change_seq: memory.changeSeq,
    ...(memory.reviewState !== undefined ? { review_state: memory.reviewState } : {}),
  };
}

export function presentSyncTombstone(tombstone: SyncTombstone): z.infer<typeof syncTombstoneResponse> {
  return { id: tombstone.id, deleted_at: tombstone.deletedAt, change_seq: tombstone.changeSeq };
}
