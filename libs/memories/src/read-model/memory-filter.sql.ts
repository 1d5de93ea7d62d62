import type { TenantScope, Tx } from '@app/persistence';
import { canonicalCategory } from '../domain/categories';
import type { MemoryFilter } from '../domain/memory';
import { liveMemorySql } from './memory-row';
import { visibleMemorySql } from './memory-visibility.sql';

/**
 * Live memories of owner `owner` with content hash `hash`, whether or not they count for the
 * uniqueness rule (`duplicates_hidden`, migration 1763700000035): the tautology lets the planner
 * read both partial indexes (a bitmap OR) instead of every live memory of the owner.
 */
export const liveWithHashSql = (owner: string, hash: string) =>
  `m.owner_id = ${owner} AND m.content_hash = ${hash} AND m.deleted_at IS NULL
   AND (m.duplicates_hidden OR NOT m.duplicates_hidden)`;

/**
 * A teammate's live team memory that a new team memory of user `$2` would repeat (tenant `$1`):
 * one with content hash `$3`, else the first of the ids `$4` (most similar first). None while the
 * user has a live memory with that hash (their own answers). Sensitive rows never match. Two index
 * probes (the team hash index, the candidates' ids), so the plan Postgres keeps for the statement
 * stays a probe at any team size (an `OR` of the two read the whole live team set). The write path
 * asks the same inside `team_duplicate_after_lock` (migration 1763700000058), under its lock.
 */
export const TEAM_DUPLICATE_SQL = `
  SELECT c.id, c.category, c.importance, c.content, c.exact FROM (
    (SELECT m.id, m.category, m.importance, m.content, true AS exact FROM memories m
      WHERE m.tenant_id = $1 AND m.content_hash = $3 AND m.visibility = 'team' AND m.deleted_at IS NULL
        AND m.owner_id <> $2 AND m.review_state = 'accepted' AND NOT m.is_sensitive
      ORDER BY array_position($4::bigint[], m.id), m.id LIMIT 1)
    UNION ALL
    (SELECT m.id, m.category, m.importance, m.content, m.content_hash = $3 FROM memories m
      WHERE m.id = ANY ($4::bigint[]) AND m.tenant_id = $1 AND m.visibility = 'team' AND m.deleted_at IS NULL
        AND m.owner_id <> $2 AND m.review_state = 'accepted' AND NOT m.is_sensitive)) c
   WHERE NOT EXISTS (SELECT 1 FROM memories o
                      WHERE o.tenant_id = $1 AND o.owner_id = $2 AND o.content_hash = $3
                        AND o.deleted_at IS NULL AND NOT o.duplicates_hidden)
   ORDER BY c.exact DESC, array_position($4::bigint[], c.id), c.id
   LIMIT 1`;

/** A teammate's memory found by `TEAM_DUPLICATE_SQL`. */
export interface TeamDuplicate {
  readonly id: number;
  readonly category: string;
  readonly importance: number;
  readonly content: string;
  /** The same text (else one of the near candidates). */
  readonly exact: boolean;
}

export async function findTeamDuplicate(
  scope: TenantScope,
  tx: Tx,
  contentHash: Buffer,
  near: readonly number[],
): Promise<TeamDuplicate | null> {
  const { rows } = await tx.query<{
    id: string;
    category: string;
    importance: number;
    content: string;
    exact: boolean;
  }>(TEAM_DUPLICATE_SQL, [scope.tenantId, scope.userId, contentHash, near], { prepared: true });
  const row = rows[0];
  return row ? { ...row, id: Number(row.id) } : null;
}

/** WHERE of the memories a list, count or bulk delete with `filter` reaches, and its parameters. */

export function memoryFilterSql(
  scope: TenantScope,
  filter: MemoryFilter,
  reach: 'visible' | 'own' = 'visible',
): { where: string; params: unknown[]; filters: string } {
  const params: unknown[] = [scope.tenantId, scope.userId];
  // `visible`: what the caller may read (RLS says the same underneath); `own`: the caller's.
  const owner = reach === 'own' ? 'm.owner_id = $2' : visibleMemorySql('m', '$2');
  const clauses = [liveMemorySql('m')];
  if (filter.category !== undefined) {
    params.push(canonicalCategory(filter.category));
    clauses.push(`m.category = $${params.length}`);
  }
  if (filter.tag !== undefined) {
    params.push([filter.tag]);
    clauses.push(`m.tags @> $${params.length}::text[]`);
  }
  if (filter.project !== undefined) {
    params.push(filter.project);
    clauses.push(`m.project = $${params.length}`);
  }
  if (filter.visibility !== undefined) {
    params.push(filter.visibility);
    clauses.push(`m.visibility = $${params.length}`);
  }
  if (filter.author !== undefined) {
    params.push(filter.author);
    clauses.push(
      `m.owner_id = (SELECT ou.id FROM users ou WHERE ou.tenant_id = $1 AND ou.username = $${params.length})`,
    );
  }
  const filters = clauses.join(' AND ');
  return { where: `m.tenant_id = $1 AND ${owner} AND ${filters}`, params, filters };
}
