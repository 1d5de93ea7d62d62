import { readsEveryMemory, type TenantScope } from '@app/persistence';
import { servedMemorySql, visibleMemorySql } from '@app/memories';
import type { RecallFilter } from '../domain/recall-filter';

/**
 * WHERE clause (alias `m`) for the memories a caller may recall: the live memories of their tenant
 * they may read (`visibleMemorySql`: own, team-visible, shared directly or by tag, every one for an
 * admin), narrowed by the recall filters. Parameters start at `first` (the tenant id, then the user
 * id, then the filters').
 */
export function recallWhere(
  scope: TenantScope,
  filter: RecallFilter,
  first = 1,
): { sql: string; filtersSql: string; readableSql: string; narrowSql: string; params: unknown[] } {
  const params: unknown[] = [scope.tenantId, scope.userId];
  const p = (value: unknown) => {
    params.push(value);
    return `$${first + params.length - 1}`;
  };
  const clauses = [`m.tenant_id = $${first}`, visibleMemorySql('m', `$${first + 1}`), servedMemorySql('m')];
  if (filter.category !== undefined) clauses.push(`m.category = ${p(filter.category)}`);
  if (filter.tags !== undefined && filter.tags.length > 0)
    clauses.push(`m.tags && ${p(filter.tags)}::text[]`);
  if (filter.project !== undefined) clauses.push(`m.project = ${p(filter.project)}`);
  if (filter.since !== undefined) clauses.push(`m.created_at >= ${p(filter.since)}`);
  if (filter.before !== undefined) clauses.push(`m.created_at < ${p(filter.before)}`);
  // `filtersSql`: liveness and the recall filters without the tenant/visibility terms, for queries
  // that reach the caller's rows another way (an index on embeddings or shares) and probe by key.
  // `readableSql` and `narrowSql` split `sql` into what the caller may read and the filters alone.
  return {
    sql: clauses.join(' AND '),
    filtersSql: clauses.slice(2).join(' AND '),
    readableSql: clauses.slice(0, 3).join(' AND '),
    narrowSql: clauses.length > 3 ? clauses.slice(3).join(' AND ') : 'true',
    params,
  };
}

/**
 * An admin granted the members' private memories reads every memory of the tenant (the transaction
 * runner sets `app.admin` from the same rule; row-level security checks the tenant's setting too).
 */
export function isAdminScope(scope: TenantScope): boolean {
  return readsEveryMemory(scope);
}
