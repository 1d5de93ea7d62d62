import { type TenantScope } from '@app/persistence';
import type { RecallFilter } from '../domain/recall-filter';

/**
 * WHERE clause (alias `m`) for the memories a caller may recall: their own live rows and the
 * team-visible rows of their tenant, narrowed by the recall filters. Parameters start at `first`.
 */
export function recallWhere(
  scope: TenantScope,
  filter: RecallFilter,
  first = 1,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [scope.tenantId, scope.userId];
  const p = (value: unknown) => {
    params.push(value);
    return `$${first + params.length - 1}`;
  };
  const clauses = [
    `m.tenant_id = $${first}`,
    `(m.owner_id = $${first + 1} OR m.visibility = 'team')`,
    'm.deleted_at IS NULL',
  ];
  if (filter.category !== undefined) clauses.push(`m.category = ${p(filter.category)}`);
  if (filter.tags !== undefined && filter.tags.length > 0)
    clauses.push(`m.tags && ${p(filter.tags)}::text[]`);
  if (filter.project !== undefined) clauses.push(`m.project = ${p(filter.project)}`);
  if (filter.since !== undefined) clauses.push(`m.created_at >= ${p(filter.since)}`);
  if (filter.before !== undefined) clauses.push(`m.created_at < ${p(filter.before)}`);
  return { sql: clauses.join(' AND '), params };
}
