/**
 * The two layouts compared by `npm run bench:layout`: the hot columns and the access-path indexes
 * of `memories` (see migrations 0000, 0004, 0024 and the `(id, tenant_id)` key of 0053) as one
 * plain table, or the same table hash-partitioned by tenant_id. Pure SQL text, so it can be tested.
 */
import { createHash } from 'node:crypto';

export interface LoadShape {
  readonly rows: number;
  /** Percent of the rows owned by the one big tenant (tenant 0). */
  readonly bigPercent: number;
  /** Small tenants (1..smallTenants) sharing the other rows evenly. */
  readonly smallTenants: number;
  readonly bigOwners: number;
  readonly smallOwners: number;
}

const COLUMNS = `
  id            bigint GENERATED ALWAYS AS IDENTITY,
  tenant_id     uuid NOT NULL,
  owner_id      uuid NOT NULL,
  content       text NOT NULL,
  tags          text[] NOT NULL DEFAULT '{}',
  importance    double precision NOT NULL DEFAULT 0.5,
  visibility    text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'team')),
  change_seq    bigint NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  deleted_at    timestamptz,
  search_vector tsvector GENERATED ALWAYS AS (setweight(to_tsvector('english', content), 'A')) STORED,
  PRIMARY KEY (id, tenant_id)`;

/** The real indexes (names and keys as in the migrations) that the measured queries can use. */
const INDEXES = [
  ['search', 'USING gin (search_vector)'],
  ['deleted_at', '(deleted_at) WHERE deleted_at IS NOT NULL'],
  [
    'owner_list_live',
    '(owner_id, importance DESC, created_at DESC, id DESC) INCLUDE (tenant_id, visibility, tags) WHERE deleted_at IS NULL',
  ],
  [
    'team_list_live',
    `(tenant_id, importance DESC, created_at DESC, id DESC) INCLUDE (owner_id, visibility, tags)
      WHERE deleted_at IS NULL AND visibility = 'team'`,
  ],
  ['tenant_change', '(tenant_id, change_seq, id)'],
  ['owner_change_seq', '(owner_id, change_seq)'],
] as const;

/** DDL for one layout: plain when `partitions` is undefined, else HASH (tenant_id) in that many parts. */
export function createTableSql(table: string, partitions?: number): string[] {
  const partitioned = partitions !== undefined;
  const statements = [
    `CREATE TABLE ${table} (${COLUMNS}\n)${partitioned ? ' PARTITION BY HASH (tenant_id)' : ''}`,
  ];
  for (let r = 0; partitioned && r < partitions; r++)
    statements.push(
      `CREATE TABLE ${table}_p${r} PARTITION OF ${table} FOR VALUES WITH (MODULUS ${partitions}, REMAINDER ${r})`,
    );
  for (const [name, definition] of INDEXES)
    statements.push(`CREATE INDEX ${table}_${name} ON ${table} ${definition}`);
  return statements;
}

/** The uuid Postgres makes of `md5(text)::uuid`, so both sides name tenants and owners alike. */
export function md5Uuid(text: string): string {
  const hex = createHash('md5').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const tenantUuid = (tenant: number) => md5Uuid(`tenant-${tenant}`);
export const ownerUuid = (tenant: number, owner: number) => md5Uuid(`owner-${tenant}-${owner}`);

const WORDS = [
  'deploy',
  'migration',
  'rollback',
  'cache',
  'latency',
  'schema',
  'review',
  'oncall',
  'queue',
  'auth',
];

/**
 * Inserts rows $1..$2 (inclusive). Every value is a function of the row number, so both layouts get
 * the same data: `bigPercent` of every 100 rows go to tenant 0, the others to a hashed small tenant
 * (interleaved in time, as tenants write concurrently); 30% team-visible, 5% soft-deleted up to 90
 * days ago, one row every 30 s of a year.
 */
export function loadBatchSql(table: string, shape: LoadShape): string {
  const words = `ARRAY[${WORDS.map((w) => `'${w}'`).join(', ')}]`;
  return `
    INSERT INTO ${table} (tenant_id, owner_id, content, tags, importance, visibility, change_seq,
                          created_at, updated_at, deleted_at)
    SELECT md5('tenant-' || t)::uuid,
           md5('owner-' || t || '-' || (h % CASE WHEN t = 0 THEN ${shape.bigOwners} ELSE ${shape.smallOwners} END))::uuid,
           'Memory ' || i || ': the ' || (${words})[1 + h / 7 % 10] || ' step for service svc' || i % 97 ||
             ' needs a ' || (${words})[1 + h / 11 % 10] || ' check before the release; see runbook ' || h % 1000 || '.',
           ARRAY['tag' || h / 13 % 13],
           (h / 17 % 11) / 10.0,
           CASE WHEN h / 19 % 10 < 3 THEN 'team' ELSE 'private' END,
           i,
           created,
           created + make_interval(hours => (h / 23 % 48)::int),
           CASE WHEN h / 29 % 20 = 0 THEN now() - make_interval(days => (h / 31 % 90)::int) END
      FROM (SELECT i, h, timestamptz '2026-01-01' + i * interval '30 seconds' AS created,
                   CASE WHEN i % 100 < ${shape.bigPercent} THEN 0 ELSE 1 + h / 37 % ${shape.smallTenants} END AS t
              FROM (SELECT i, abs(hashint4(i)::bigint) AS h FROM generate_series($1::int, $2::int) i) g) r`;
}

/** Heap, index and total bytes of a table and, when partitioned, all of its partitions. */
export function sizeSql(table: string): string {
  return `
    SELECT sum(pg_table_size(relid))::float8 AS heap, sum(pg_indexes_size(relid))::float8 AS indexes,
           sum(pg_total_relation_size(relid))::float8 AS total
      FROM (SELECT '${table}'::regclass AS relid UNION SELECT relid FROM pg_partition_tree('${table}')) r`;
}
