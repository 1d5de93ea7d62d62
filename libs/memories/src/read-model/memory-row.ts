import type { Memory, Visibility } from '../domain/memory';

/** A memory row as the repositories select it (ids as `pg` returns bigints; timestamps already ISO text). */
export interface MemoryRow {
  id: string | number;
  content: string;
  category: string;
  tags: string[];
  expanded_keywords: string;
  importance: number;
  project: string | null;
  is_sensitive: boolean;
  visibility: Visibility;
  expires_at: string | null;
  owner: string;
  /** The owner's username when the caller reads the memory through a share; absent or null otherwise. */
  shared_by?: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** The domain view of a selected row. */
export function toMemory(row: MemoryRow): Memory {
  return {
    id: Number(row.id),
    content: row.content,
    category: row.category,
    tags: row.tags,
    expandedKeywords: row.expanded_keywords,
    importance: row.importance,
    project: row.project,
    isSensitive: row.is_sensitive,
    visibility: row.visibility,
    expiresAt: row.expires_at,
    owner: row.owner,
    sharedBy: row.shared_by ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
  };
}

/**
 * SQL predicate for a memory any reader may still see: not deleted and not expired. An expired
 * memory leaves every read at once; the `memories.expire` job soft-deletes it later (sync then
 * reports the deletion).
 */
export function liveMemorySql(alias = 'm'): string {
  return `${alias}.deleted_at IS NULL AND (${alias}.expires_at IS NULL OR ${alias}.expires_at > now())`;
}
