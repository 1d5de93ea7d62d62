import { Client } from 'pg';

export interface BenchDatabase {
  readonly name: string;
  readonly url: string;
  /** Drops the database (forcing other sessions off); safe to call twice. */
  drop(): Promise<void>;
}

/**
 * A database of the benchmark's own on the shared server, named after the process so parallel
 * runs never collide. Migrations run when the services start against it (RUN_MIGRATIONS).
 */
export async function createBenchDatabase(adminUrl: string, label: string): Promise<BenchDatabase> {
  const name = `memsvc_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${process.pid}`;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  let dropped = false;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A plain `pg` connection for the raw floor and for loading rows (the bench connects as the schema owner). */
export async function connectRaw(url: string, applicationName: string): Promise<Client> {
  const client = new Client({ connectionString: url, application_name: applicationName });
  await client.connect();
  return client;
}
