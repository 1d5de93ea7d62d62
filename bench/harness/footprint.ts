import { escapeIdentifier, type Client } from 'pg';
import { residentMemory, type ResidentMemory } from '../http/process-usage';

/** One table with its TOAST, free-space and visibility maps (`table`) and its indexes. */
export interface RelationSize {
  readonly name: string;
  /** `count(*)` of the table. */
  readonly rows: number;
  readonly tableBytes: number;
  readonly indexBytes: number;
  /** `pg_total_relation_size`: table and indexes together. */
  readonly totalBytes: number;
}

export interface IndexSize {
  readonly name: string;
  readonly table: string;
  readonly bytes: number;
}

export interface DiskUse {
  /** `pg_database_size` of the benchmark database (every tenant the run loaded, not the team's alone). */
  readonly databaseBytes: number;
  /** Memories in the database, and those of the measured tenant. */
  readonly memories: { readonly all: number; readonly tenant: number };
  /** memories, memory_embeddings and the text-index tables, largest first. */
  readonly relations: readonly RelationSize[];
  /** The largest indexes of those tables. */
  readonly indexes: readonly IndexSize[];
}

/** Tables the report sizes besides the text index's (`text_*`, `memory_text*`). */
const SIZED_TABLES = ['memories', 'memory_embeddings'];
const SIZED_WHERE = `c.relkind IN ('r', 'p') AND n.nspname = current_schema()
  AND (c.relname = ANY($1) OR c.relname LIKE 'text\\_%' OR c.relname LIKE 'memory\\_text%')`;

/** What the database holds on disk, from Postgres' own size functions. */
export async function measureDiskUse(pg: Client, tenantId: string, largestIndexes = 8): Promise<DiskUse> {
  const database = await pg.query<{ bytes: string }>(
    `SELECT pg_database_size(current_database())::text AS bytes`,
  );
  const counts = await pg.query<{ all: string; tenant: string }>(
    `SELECT count(*)::text AS all, count(*) FILTER (WHERE tenant_id = $1)::text AS tenant FROM memories`,
    [tenantId],
  );
  const relations = await pg.query<{ name: string; tbl: string; idx: string; total: string }>(
    `SELECT c.relname AS name, pg_table_size(c.oid)::text AS tbl,
            pg_indexes_size(c.oid)::text AS idx, pg_total_relation_size(c.oid)::text AS total
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE ${SIZED_WHERE}
      ORDER BY pg_total_relation_size(c.oid) DESC`,
    [SIZED_TABLES],
  );
  const indexes = await pg.query<{ name: string; tbl: string; bytes: string }>(
    `SELECT i.relname AS name, c.relname AS tbl, pg_relation_size(i.oid)::text AS bytes
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_class c ON c.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE ${SIZED_WHERE}
      ORDER BY pg_relation_size(i.oid) DESC LIMIT $2`,
    [SIZED_TABLES, largestIndexes],
  );
  const rows = new Map<string, number>();
  for (const { name } of relations.rows) {
    const counted = await pg.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM ${escapeIdentifier(name)}`,
    );
    rows.set(name, Number(counted.rows[0].n));
  }
  return {
    databaseBytes: Number(database.rows[0].bytes),
    memories: { all: Number(counts.rows[0].all), tenant: Number(counts.rows[0].tenant) },
    relations: relations.rows.map((r) => ({
      name: r.name,
      rows: rows.get(r.name) ?? Number.NaN,
      tableBytes: Number(r.tbl),
      indexBytes: Number(r.idx),
      totalBytes: Number(r.total),
    })),
    indexes: indexes.rows.map((r) => ({ name: r.name, table: r.tbl, bytes: Number(r.bytes) })),
  };
}

/**
 * Postgres' memory, as far as this machine's /proc shows it. Summing RSS over Postgres processes
 * would count shared_buffers once per process that touched it, so the private (anonymous) pages
 * are summed and the shared pages taken as the most any one process touched (a lower bound of the
 * shared memory in use).
 */
export interface PostgresMemory {
  /** The `shared_buffers` setting, MB (allocated at start; resident as pages are touched). */
  readonly sharedBuffersMb: number;
  /** Processes `pg_stat_activity` lists (backends and auxiliary processes; not the postmaster). */
  readonly processes: number;
  /** Of those, the ones whose /proc could be read (0: Postgres runs elsewhere; then no sums). */
  readonly readable: number;
  /** Sum of their private resident memory (RssAnon), MB. */
  readonly privateMb: number;
  /** The most shared memory one of them had touched (RssShmem: shared_buffers and Postgres' other shared structures), MB. */
  readonly sharedTouchedMb: number;
}

export function summarisePostgresMemory(
  sharedBuffersMb: number,
  readings: readonly (ResidentMemory | null)[],
): PostgresMemory {
  const read = readings.filter((r): r is ResidentMemory => r !== null);
  return {
    sharedBuffersMb,
    processes: readings.length,
    readable: read.length,
    privateMb: read.reduce((sum, r) => sum + r.anon, 0),
    sharedTouchedMb: read.reduce((most, r) => Math.max(most, r.shmem), 0),
  };
}

export async function measurePostgresMemory(pg: Client): Promise<PostgresMemory> {
  const setting = await pg.query<{ bytes: string }>(
    `SELECT (SELECT setting::bigint FROM pg_settings WHERE name = 'shared_buffers')
          * (SELECT setting::bigint FROM pg_settings WHERE name = 'block_size') AS bytes`,
  );
  const { rows } = await pg.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity`);
  const readings = await Promise.all(rows.map((r) => residentMemory(r.pid)));
  return summarisePostgresMemory(Number(setting.rows[0].bytes) / (1024 * 1024), readings);
}
