import type { Tx } from './tx';

/** The tables whose statistics the query plans depend on most. */
export const PLANNED_TABLES = [
  'memories',
  'memory_embeddings',
  'memory_index_state',
  'outbox',
  'memory_links',
  'memory_shares',
  'tag_shares',
] as const;
export type PlannedTable = (typeof PLANNED_TABLES)[number];

const isPlannedTable = (name: string): name is PlannedTable =>
  (PLANNED_TABLES as readonly string[]).includes(name);

/**
 * Tables changed enough since their last ANALYZE that the planner's estimates may be far off:
 * more than `minChanges` rows and more than `fraction` of the table (autovacuum's own rule, checked
 * here so that correct plans do not depend on autovacuum running, or running soon enough).
 */
export async function staleTables(
  tx: Tx,
  options: { minChanges: number; fraction: number },
): Promise<PlannedTable[]> {
  const { rows } = await tx.query<{ relname: string }>(
    `SELECT relname FROM pg_stat_user_tables
      WHERE schemaname = current_schema() AND relname = ANY($1::text[])
        AND n_mod_since_analyze > greatest($2::bigint, $3::float8 * n_live_tup)
      ORDER BY relname`,
    [PLANNED_TABLES, options.minChanges, options.fraction],
  );
  return rows.map((r) => r.relname).filter(isPlannedTable);
}

/** ANALYZE as the schema owner (a system transaction). Names come only from PLANNED_TABLES. */
export async function analyzeTables(tx: Tx, tables: readonly string[]): Promise<void> {
  const names = tables.filter(isPlannedTable);
  if (names.length > 0) await tx.query(`ANALYZE ${names.join(', ')}`);
}
