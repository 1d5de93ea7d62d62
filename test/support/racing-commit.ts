import { Client } from 'pg';

/**
 * Sends a request while another transaction holds an uncommitted change, and commits that change
 * once the request's statement waits on it (a row or key lock): the request meets a concurrent
 * write exactly as if another request had committed it between the request's checks and its
 * statement. `change` runs on a superuser connection (no row-level security), inside the
 * transaction. A request that settles without ever waiting is returned as it answered (the change
 * is rolled back), so a scenario that misses its race fails on its assertions instead of hanging.
 */
export async function racingCommit<T>(
  databaseUrl: string,
  change: (db: Client) => Promise<unknown>,
  request: () => Promise<T>,
): Promise<T> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('BEGIN');
    await change(db);
    let settled = false;
    const pending = request().finally(() => (settled = true));
    const waiting = await waitsForLock(db, () => settled);
    await db.query(waiting ? 'COMMIT' : 'ROLLBACK');
    return await pending;
  } finally {
    await db.end();
  }
}

/** True once another backend waits for a lock this transaction holds; false when the request settled first. */
async function waitsForLock(db: Client, settled: () => boolean, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    // Blocked by this transaction: not some other backend that happens to wait for a lock.
    const { rowCount } = await db.query(
      `SELECT 1 FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'
          AND pg_backend_pid() = ANY (pg_blocking_pids(pid))`,
    );
    if (rowCount) return true;
    if (settled()) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the request neither waited for the uncommitted change nor answered');
}
