import { randomBytes } from 'node:crypto';
import { withDb } from './superuser-db';

/** Every row of every table in the schema, as text: where a leaked secret would show up. */
export async function wholeDatabaseText(): Promise<string> {
  return withDb(async (db) => {
    const tables = await db.query<{ name: string }>(
      `SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public'`,
    );
    const parts: string[] = [];
    for (const { name } of tables.rows) {
      const rows = await db.query<{ t: string }>(`SELECT t::text AS t FROM ${name} t`);
      parts.push(...rows.rows.map((r) => r.t));
    }
    return parts.join('\n');
  });
}

/** A GitHub token made at run time (secret detection knows its shape): nothing secret is committed. */
export const ghToken = () =>
  `ghp_${randomBytes(27)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, 'x')
    .slice(0, 36)}`;
