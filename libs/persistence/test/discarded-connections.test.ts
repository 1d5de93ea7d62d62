import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDataSource, initializeDataSource } from '@app/persistence';
import type { DataSource } from 'typeorm';

/**
 * A Postgres restart sends FATAL 57P01 to every session, including connections the service is
 * already throwing away. Such a late error must not be an unhandled 'error' event (which ends a Node
 * process): the API would die instead of answering 503 until the database is back.
 */
describe('connections being discarded', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await initializeDataSource(
      createDataSource({
        url: inject('databaseUrl'),
        poolSize: 2,
        statementTimeoutMs: 5_000,
        applicationName: 'discarded-connections-test',
      }),
    );
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('keep a listener of their own, so a late error in a moment neither the pool nor TypeORM listens is handled', async () => {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    const client = (runner as unknown as { databaseConnection: Client }).databaseConnection;
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // The pool stopped listening when it handed the connection out; take away the runner's listener
    // too, as when the runner lets go of a connection it is closing.
    const runnerListener = client.listeners('error').at(-1) as (error: Error) => void;
    client.removeListener('error', runnerListener);
    const closed = new Promise((resolve) => client.once('end', resolve));
    const admin = new Client({ connectionString: inject('databaseUrl') });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    } finally {
      await admin.end();
    }
    // The server's FATAL reached the connection while only our own listener was there.
    await closed;
    expect(() =>
      client.emit('error', new Error('terminating connection due to administrator command')),
    ).not.toThrow();
    client.on('error', runnerListener);
    await runner.release();
    // The pool still serves queries on new connections.
    expect(await dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
