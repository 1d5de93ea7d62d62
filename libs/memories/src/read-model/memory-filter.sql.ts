import type { TenantScope } from '@app/persistence';
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
