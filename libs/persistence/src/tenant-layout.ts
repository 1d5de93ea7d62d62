/**
 * The rule that lets a sharding layer (Citus) distribute the schema by tenant, read from the catalog:
 * every table but the reference and local ones below is tenant-owned, carries a non-null `tenant_id`,
 * and includes it in each primary key, unique key and unique index; a foreign key between two
 * tenant-owned tables joins on `tenant_id` at the same place on both sides and never sets it to null;
 * a reference table refers to reference tables only. docs/deploy.md ("Beyond one database") turns the
 * lists into `create_reference_table` / `create_distributed_table` calls.
 */

/** Copied to every node: keyed without a tenant (tenants themselves, the model registry, server-wide secrets, API key hashes, which must stay unique across tenants). */
export const REFERENCE_TABLES: readonly string[] = [
  'tenants',
  'embedding_models',
  'server_secrets',
  'api_key_hashes',
];

/** Kept on the coordinator only: the migration runner's own table. */
export const LOCAL_TABLES: readonly string[] = ['schema_migrations'];

export interface Queryable {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

export interface LayoutViolation {
  readonly table: string;
  /** The constraint or index concerned, when the problem is one of them. */
  readonly object?: string;
  readonly problem: string;
}

interface TableRow {
  table: string;
  tenant_column: 'not null' | 'nullable' | null;
}

interface UniqueRow {
  table: string;
  name: string;
  has_tenant: boolean;
}

interface ForeignRow {
  table: string;
  name: string;
  references: string;
  columns: string[];
  referenced: string[];
  on_delete: string;
}

/** Every way the schema `schema` breaks the rule, empty when it holds. */
export async function tenantLayoutViolations(db: Queryable, schema = 'public'): Promise<LayoutViolation[]> {
  const reference = new Set(REFERENCE_TABLES);
  const local = new Set(LOCAL_TABLES);
  const distributed = (table: string) => !reference.has(table) && !local.has(table);
  const violations: LayoutViolation[] = [];

  const { rows: tables } = await db.query<TableRow>(
    `SELECT c.relname AS table,
            (SELECT CASE WHEN a.attnotnull THEN 'not null' ELSE 'nullable' END FROM pg_attribute a
              WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped) AS tenant_column
       FROM pg_class c
      WHERE c.relnamespace = $1::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      ORDER BY 1`,
    [schema],
  );
  const present = new Set(tables.map((t) => t.table));
  for (const listed of [...REFERENCE_TABLES, ...LOCAL_TABLES]) {
    if (!present.has(listed))
      violations.push({ table: listed, problem: 'listed as reference or local, but no such table' });
  }
  for (const t of tables) {
    if (!distributed(t.table)) continue;
    if (t.tenant_column === null) violations.push({ table: t.table, problem: 'no tenant_id column' });
    else if (t.tenant_column === 'nullable')
      violations.push({ table: t.table, problem: 'tenant_id may be null' });
  }

  const { rows: uniques } = await db.query<UniqueRow>(
    `SELECT c.relname AS table, i.relname AS name,
            EXISTS (SELECT 1 FROM pg_attribute a
                     WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND a.attnum = ANY (x.indkey)) AS has_tenant
       FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
      WHERE c.relnamespace = $1::regnamespace AND c.relkind IN ('r', 'p') AND x.indisunique
      ORDER BY 1, 2`,
    [schema],
  );
  for (const u of uniques) {
    if (distributed(u.table) && !u.has_tenant) {
      violations.push({ table: u.table, object: u.name, problem: 'unique key or index without tenant_id' });
    }
  }

  const { rows: foreign } = await db.query<ForeignRow>(
    `SELECT f.conrelid::regclass::text AS table, f.conname AS name, f.confrelid::regclass::text AS references,
            ARRAY(SELECT a.attname::text FROM unnest(f.conkey) WITH ORDINALITY k(n, o)
                    JOIN pg_attribute a ON a.attrelid = f.conrelid AND a.attnum = k.n ORDER BY k.o) AS columns,
            ARRAY(SELECT a.attname::text FROM unnest(f.confkey) WITH ORDINALITY k(n, o)
                    JOIN pg_attribute a ON a.attrelid = f.confrelid AND a.attnum = k.n ORDER BY k.o) AS referenced,
            f.confdeltype::text AS on_delete
       FROM pg_constraint f
      WHERE f.contype = 'f' AND f.connamespace = $1::regnamespace
      ORDER BY 1, 2`,
    [schema],
  );
  for (const fk of foreign) {
    const from = distributed(fk.table);
    const to = distributed(fk.references);
    if (!from && to) {
      violations.push({
        table: fk.table,
        object: fk.name,
        problem: `a ${local.has(fk.table) ? 'local' : 'reference'} table refers to the tenant-owned ${fk.references}`,
      });
      continue;
    }
    if (!from || !to) continue;
    const at = fk.columns.indexOf('tenant_id');
    if (at < 0 || fk.referenced[at] !== 'tenant_id') {
      violations.push({
        table: fk.table,
        object: fk.name,
        problem: `foreign key to ${fk.references} does not join on tenant_id`,
      });
    } else if (fk.on_delete === 'n' || fk.on_delete === 'd') {
      // Postgres 15 can limit SET NULL to some columns; a sharding layer refuses it on a key holding its distribution column.
      violations.push({
        table: fk.table,
        object: fk.name,
        problem: 'ON DELETE SET NULL or SET DEFAULT on a key that holds tenant_id',
      });
    }
  }
  return violations;
}

/** The tenant-owned tables of `schema` (what `create_distributed_table(…, 'tenant_id')` takes), in name order. */
export async function tenantOwnedTables(db: Queryable, schema = 'public'): Promise<string[]> {
  const { rows } = await db.query<{ table: string }>(
    `SELECT c.relname AS table FROM pg_class c
      WHERE c.relnamespace = $1::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      ORDER BY 1`,
    [schema],
  );
  return rows.map((r) => r.table).filter((t) => !REFERENCE_TABLES.includes(t) && !LOCAL_TABLES.includes(t));
}
