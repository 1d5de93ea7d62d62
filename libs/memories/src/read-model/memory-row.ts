import { isoTimestamp } from '@app/persistence';
import type { AnchorState, MemoryAnchor } from '../domain/anchor';
import type { Memory, Visibility } from '../domain/memory';
import type { PinScope } from '../domain/pin';

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
  /** `accepted`, `proposed` or `rejected`; absent when the read does not select it. */
  review_state?: string;
  /** The pins the reader sees (`pinnedColumnSql`); absent when the read does not select them. */
  pinned?: PinScope[];
  /** The branch it is scoped to (null: the project's). */
  branch?: string | null;
  /** Its anchors (`anchorsColumnSql`); absent when the read does not select them. */
  anchors?: AnchorRow[];
}

/** An anchor as `anchorsColumnSql` selects it (JSON). */
export interface AnchorRow {
  repo: string;
  path: string;
  symbol: string | null;
  line_start: number | null;
  line_end: number | null;
  commit: string | null;
  hash: string | null;
  state: AnchorState;
  changed_event: number | null;
  changed_at: string | null;
  changed_hash: string | null;
  changed_commit: string | null;
}

export function toAnchor(row: AnchorRow): MemoryAnchor {
  return {
    repo: row.repo,
    path: row.path,
    symbol: row.symbol,
    lines: row.line_start === null ? null : { start: row.line_start, end: row.line_end ?? row.line_start },
    commit: row.commit,
    hash: row.hash,
    state: row.state,
    change:
      row.state === 'current' || row.changed_at === null
        ? null
        : {
            eventId: row.changed_event === null ? null : Number(row.changed_event),
            at: row.changed_at,
            hash: row.changed_hash,
            commit: row.changed_commit,
          },
  };
}

/**
 * The anchors of memory `m` in their order (JSON array; empty when none): one index probe of
 * `memory_anchors` per row, whose own row-level security applies as well.
 */
export function anchorsColumnSql(alias: string): string {
  return `(SELECT coalesce(json_agg(json_build_object(
             'repo', a.repo, 'path', a.path, 'symbol', a.symbol, 'line_start', a.line_start,
             'line_end', a.line_end, 'commit', a.commit, 'hash', a.hash, 'state', a.state,
             'changed_event', a.changed_event, 'changed_at', ${isoTimestamp('a.changed_at')},
             'changed_hash', a.changed_hash, 'changed_commit', a.changed_commit) ORDER BY a.ordinal), '[]')
             FROM memory_anchors a WHERE a.memory_id = ${alias}.id) AS anchors`;
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
    ...(row.review_state === 'proposed' || row.review_state === 'rejected'
      ? { reviewState: row.review_state }
      : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
    ...(row.pinned !== undefined ? { pinned: row.pinned } : {}),
    ...(row.anchors !== undefined ? { anchors: row.anchors.map(toAnchor) } : {}),
    ...(row.branch ? { branch: row.branch } : {}),
  };
}

/**
 * The pins reader `user` sees on memory `m` (the team pin, their own), team first: one index probe
 * of `memory_pins` per row, whose own row-level security applies as well.
 */
export function pinnedColumnSql(alias: string, user: string): string {
  return `array(SELECT p.scope FROM memory_pins p
                 WHERE p.memory_id = ${alias}.id AND (p.scope = 'team' OR p.user_id = ${user})
                 ORDER BY p.scope = 'team' DESC) AS pinned`;
}

/**
 * SQL predicate for a memory any reader may still see: not deleted and not expired. An expired
 * memory leaves every read at once; the `memories.expire` job soft-deletes it later (sync then
 * reports the deletion).
 */
export function liveMemorySql(alias = 'm'): string {
  return `${alias}.deleted_at IS NULL AND (${alias}.expires_at IS NULL OR ${alias}.expires_at > now())`;
}

/**
 * SQL predicate for a live memory in force: accepted, not a proposal waiting for review (migration
 * 1763700000048). What recall, the startup context, the supersedes walk and duplicate folding serve;
 * reading a memory by id, lists and exports show proposals too (with their `review_state`).
 */
export function servedMemorySql(alias = 'm'): string {
  return `${liveMemorySql(alias)} AND ${alias}.review_state = 'accepted'`;
}
