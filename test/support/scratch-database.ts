import { Client } from 'pg';
import { migrateDatabase } from '@app/testing';

export interface ScratchDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/**
 * A migrated database of its own, for suites that change install-wide state (the embedding model
 * registry) or load enough rows to slow everyone else down. Dropped when the suite ends.
 */
export async function createScratchDatabase(adminUrl: string, label: string): Promise<ScratchDatabase> {
  const name = `memsvc_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${process.pid}`;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const admin = async (sql: string) => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  await migrateDatabase(url.toString(), 'scratch-setup');
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
