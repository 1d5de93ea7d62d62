import type { Client } from 'pg';

/** Per table: how many rows and an md5 over every row's text (order-independent). */
export type DatabaseSnapshot = Readonly<Record<string, { readonly rows: number; readonly md5: string }>>;

export interface SnapshotFilter {
  readonly clause: string;
  readonly params?: readonly unknown[];
}

export interface SnapshotOptions {
  /** Tables left out: bookkeeping that legitimately moves on a refused request (audit, outbox). */
  readonly skipTables?: readonly string[];
  /** Columns left out per table (e.g. `api_keys.last_used_at`, touched by every authenticated call). */
  readonly skipColumns?: Readonly<Record<string, readonly string[]>>;
  /** A WHERE clause per table with its parameters; null for the whole table, '' to leave it out. */
  readonly where?: (table: string, columns: readonly string[]) => SnapshotFilter | null;
}

/**
 * Takes a snapshot of the public schema over a superuser connection (bypasses row-level security),
 * for proving that a batch of refused requests changed nothing.
 */
export async function snapshotDatabase(db: Client, options: SnapshotOptions = {}): Promise<DatabaseSnapshot> {
  const skipTables = new Set(options.skipTables ?? []);
  const { rows } = await db.query<{ table_name: string; columns: string[] }>(
    `SELECT c.table_name, array_agg(c.column_name::text ORDER BY c.ordinal_position) AS columns
       FROM information_schema.columns c
       JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
      GROUP BY c.table_name ORDER BY c.table_name`,
  );
  const snapshot: Record<string, { rows: number; md5: string }> = {};
  for (const { table_name: table, columns } of rows) {
    if (skipTables.has(table)) continue;
    const skip = new Set(options.skipColumns?.[table] ?? []);
    const kept = columns.filter((c) => !skip.has(c));
    const where = options.where?.(table, columns) ?? null;
    if (where?.clause === '') continue;
    const row = `md5(ROW(${kept.map((c) => `t."${c}"`).join(', ')})::text)`;
    const result = await db.query<{ rows: string; md5: string | null }>(
      `SELECT count(*) AS rows, md5(string_agg(${row}, '' ORDER BY ${row})) AS md5
         FROM "${table}" t ${where ? `WHERE ${where.clause}` : ''}`,
      [...(where?.params ?? [])],
    );
    snapshot[table] = { rows: Number(result.rows[0].rows), md5: result.rows[0].md5 ?? '' };
  }
  return snapshot;
}

/** What differs between two snapshots, one line per table (empty when nothing changed). */
export function diffSnapshots(before: DatabaseSnapshot, after: DatabaseSnapshot): string[] {
  const tables = new Set([...Object.keys(before), ...Object.keys(after)]);
  const changes: string[] = [];
  for (const table of [...tables].sort()) {
    const a = before[table];
    const b = after[table];
    if (a?.rows !== b?.rows) changes.push(`${table}: ${a?.rows ?? 'absent'} rows -> ${b?.rows ?? 'absent'}`);
    else if (a?.md5 !== b?.md5) changes.push(`${table}: same ${a?.rows} rows, contents changed`);
  }
  return changes;
}
