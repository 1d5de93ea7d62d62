import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Client } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PrivatePostgres } from '../src/chaos/private-postgres';

const query = async (url: string, sql: string): Promise<unknown[]> => {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
};

describe('a private Postgres cluster for one suite', () => {
  let cluster: PrivatePostgres | undefined;

  afterAll(async () => {
    await cluster?.drop().catch(() => undefined);
  });

  it('replaces a cluster a killed run left behind, keeps committed rows across a restart, and drops itself', async () => {
    // A run killed before its cleanup: its cluster is named after a process that is gone.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const leftover = `chaos_leftover_${gone}`;
    execFileSync('pg_createcluster', ['15', leftover, '--start-conf', 'manual', '--', '--auth=trust']);
    expect(existsSync(`/etc/postgresql/15/${leftover}`)).toBe(true);

    cluster = await PrivatePostgres.create('self test');
    expect(existsSync(`/etc/postgresql/15/${leftover}`)).toBe(false);

    // pgvector is there for the migrations (the durability suite migrates its cluster).
    const url = cluster.url();
    await query(url, `CREATE EXTENSION IF NOT EXISTS vector`);
    await query(url, `CREATE TABLE kept (v vector(2)); INSERT INTO kept VALUES ('[1,2]')`);
    await cluster.restart();
    expect(await query(url, `SELECT v::text FROM kept`)).toEqual([{ v: '[1,2]' }]);

    await cluster.drop();
    expect(existsSync(`/etc/postgresql/15/${cluster.name}`)).toBe(false);
    cluster = undefined;
  });
});
