import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { startStreamingReplica, type StreamingReplica } from '../src/streaming-replica';

const query = async <T>(url: string, sql: string, values: unknown[] = []): Promise<T[]> => {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
};

describe('a streaming replica of the test Postgres', () => {
  const databaseUrl = inject('databaseUrl');
  const table = `replica_probe_${randomUUID().slice(0, 8)}`;
  let replica: StreamingReplica | undefined;

  afterAll(async () => {
    await replica?.destroy();
    await query(databaseUrl, `DROP TABLE IF EXISTS ${table}`);
  });

  it('replays the primary, refuses writes, and catches up after a stop', async () => {
    const started = performance.now();
    replica = await startStreamingReplica({ primaryUrl: inject('adminDatabaseUrl') });
    console.info(`replica on port ${replica.port} started in ${Math.round(performance.now() - started)} ms`);
    const replicaUrl = replica.urlFor(databaseUrl);
    expect(new URL(replicaUrl).port).toBe(String(replica.port));

    await query(databaseUrl, `CREATE TABLE ${table} (id int PRIMARY KEY, note text)`);
    await query(databaseUrl, `INSERT INTO ${table} VALUES (1, 'before')`);
    const [{ lsn }] = await query<{ lsn: string }>(databaseUrl, `SELECT pg_current_wal_lsn()::text AS lsn`);
    await replica.waitForReplay(lsn);
    expect(await replica.replayLsn()).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    expect(await query(replicaUrl, `SELECT id, note FROM ${table}`)).toEqual([{ id: 1, note: 'before' }]);

    await expect(query(replicaUrl, `INSERT INTO ${table} VALUES (2, 'refused')`)).rejects.toMatchObject({
      code: '25006',
    });

    await replica.stop();
    await expect(query(replicaUrl, `SELECT 1`)).rejects.toThrow();
    await query(databaseUrl, `INSERT INTO ${table} VALUES (3, 'while down')`);

    await replica.start();
    await replica.caughtUp();
    expect(await query(replicaUrl, `SELECT id, note FROM ${table} ORDER BY id`)).toEqual([
      { id: 1, note: 'before' },
      { id: 3, note: 'while down' },
    ]);
  });
});
