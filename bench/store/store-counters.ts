import { readFileSync } from 'node:fs';
import type { Client } from 'pg';

export interface StoreCounters {
  readonly apiCpuMs: number;
  readonly pgCpuMs: number;
  readonly rowsWritten: number;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** User + system CPU of a process so far, from /proc (0 when it is gone). */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * What the API process and the run's database have spent so far: the API's CPU, the CPU of the
 * Postgres backends connected to the database (other than this one) and the rows in its tables,
 * counted directly: pg_stat_database trails idle backends by up to ten seconds (and transaction ids
 * are shared with every other database of the server). `pg` must have app.system on.
 */
export async function storeCounters(pg: Client, database: string, apiPid: number): Promise<StoreCounters> {
  const { rows: tables } = await pg.query<{ name: string }>(
    `SELECT format('%I', relname) AS name FROM pg_stat_user_tables WHERE schemaname = 'public'`,
  );
  const counted = tables.map((t) => `(SELECT count(*) FROM ${t.name})`).join(' + ');
  const { rows } = await pg.query<{ pids: number[] | null; rows: string }>(
    `SELECT (SELECT array_agg(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()) AS pids,
            ${counted} AS rows`,
    [database],
  );
  const row = rows[0];
  return {
    apiCpuMs: processCpuMs(apiPid),
    pgCpuMs: (row.pids ?? []).reduce((sum, pid) => sum + processCpuMs(pid), 0),
    rowsWritten: Number(row.rows),
  };
}
