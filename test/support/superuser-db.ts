import { Client } from 'pg';
import { inject } from 'vitest';

/** Runs `run` on a superuser connection to the test database (bypasses RLS: for checking what is stored). */
export async function withDb<T>(run: (db: Client) => Promise<T>): Promise<T> {
  const db = new Client({ connectionString: inject('databaseUrl') });
  await db.connect();
  try {
    return await run(db);
  } finally {
    await db.end();
  }
}
