import { setTimeout as sleep } from 'node:timers/promises';
import { withDb } from './superuser-db';

/**
 * Waits until every transaction of the test database that began before the call has finished, so
 * the next sync page holds everything committed so far: the feed hands out only changes of
 * finished transactions, and any transaction of the database (a relay, a worker) may hold that
 * back for a moment.
 */
export async function settleSync(): Promise<void> {
  await withDb(async (db) => {
    const mark = (await db.query<{ xid: string }>(`SELECT pg_current_xact_id()::text AS xid`)).rows[0].xid;
    for (let i = 0; ; i += 1) {
      const { rows } = await db.query<{ done: boolean }>(`SELECT sync_horizon() > $1::bigint AS done`, [
        mark,
      ]);
      if (rows[0].done) return;
      if (i > 3000) throw new Error(`transactions older than ${mark} are still running`);
      await sleep(10);
    }
  });
}
