/**
 * The access paths measured on each layout, shaped like the service's own statements
 * (memory-read, memory-visibility, memory-sync, sync-retention repositories). Each one is run for
 * one tenant (`scope: 'tenant'`) or across all tenants (`scope: 'all'`).
 */

/** What a tenant-scoped query draws its parameters from (sampled once per layout and tenant). */
export interface TenantSample {
  readonly tenantId: string;
  readonly ownerIds: readonly string[];
  readonly ids: readonly string[];
  readonly changeSeqs: readonly string[];
}

export interface LayoutQuery {
  readonly name: string;
  readonly scope: 'tenant' | 'all';
  sql(table: string): string;
  /** Parameters of iteration `i` (varied so every iteration reads different rows). */
  params(sample: TenantSample, i: number): unknown[];
}

const pick = <T>(values: readonly T[], i: number): T => values[i % values.length];
const LIST_ORDER = 'ORDER BY importance DESC, created_at DESC, id DESC LIMIT 20';
const SERVICES = 97;
const WORDS = ['deploy', 'migration', 'rollback', 'cache', 'latency'];

export const LAYOUT_QUERIES: readonly LayoutQuery[] = [
  {
    name: 'get by (id, tenant_id)',
    scope: 'tenant',
    sql: (
      t,
    ) => `SELECT id, owner_id, content, tags, importance, visibility, change_seq, created_at, updated_at, deleted_at
                   FROM ${t} WHERE id = $1 AND tenant_id = $2`,
    params: (s, i) => [pick(s.ids, i), s.tenantId],
  },
  {
    name: 'list page, own (owner_list_live)',
    scope: 'tenant',
    sql: (t) => `SELECT id, importance, created_at FROM ${t}
                  WHERE tenant_id = $1 AND owner_id = $2 AND deleted_at IS NULL ${LIST_ORDER}`,
    params: (s, i) => [s.tenantId, pick(s.ownerIds, i)],
  },
  {
    name: 'list page, team (team_list_live)',
    scope: 'tenant',
    sql: (t) => `SELECT id, importance, created_at FROM ${t}
                  WHERE tenant_id = $1 AND visibility = 'team' AND owner_id <> $2 AND deleted_at IS NULL ${LIST_ORDER}`,
    params: (s, i) => [s.tenantId, pick(s.ownerIds, i)],
  },
  {
    name: 'change feed page (tenant_change)',
    scope: 'tenant',
    sql: (t) => `SELECT id, change_seq, deleted_at FROM ${t}
                  WHERE tenant_id = $1 AND change_seq > $2 ORDER BY change_seq, id LIMIT 100`,
    params: (s, i) => [s.tenantId, pick(s.changeSeqs, i)],
  },
  {
    name: 'full-text match in tenant, limit 30',
    scope: 'tenant',
    sql: (t) => `SELECT id FROM ${t}
                  WHERE search_vector @@ to_tsquery('english', $2) AND tenant_id = $1 AND deleted_at IS NULL LIMIT 30`,
    params: (s, i) => [s.tenantId, `svc${i % SERVICES} & ${pick(WORDS, i)}`],
  },
  {
    name: 'single-row insert',
    scope: 'tenant',
    sql: (t) => `INSERT INTO ${t} (tenant_id, owner_id, content, tags, visibility, change_seq)
                 VALUES ($1, $2, $3, '{tag1}', 'private', $4) RETURNING id`,
    params: (s, i) => [
      s.tenantId,
      pick(s.ownerIds, i),
      `Benchmark insert ${i}: the deploy step for service svc${i % SERVICES} needs a cache check.`,
      10_000_000 + i,
    ],
  },
  {
    name: 'retention scan, all tenants, limit 1000',
    scope: 'all',
    sql: (t) => `SELECT id, tenant_id FROM ${t}
                  WHERE deleted_at < now() - interval '30 days' ORDER BY deleted_at LIMIT 1000`,
    params: () => [],
  },
];
