import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type TenantScope } from '@app/persistence';
import { createTestTenant, freePort, openTestDatabase, type TestDatabase } from '@app/testing';
import { toErrorResponse } from '../../apps/api/src/http/error-mapping';

/** The errors a real Postgres raises, through the one error mapping REST and MCP share. */
describe('a database that gives up on a statement', () => {
  let db: TestDatabase;
  let alice: TenantScope;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 2);
    alice = await (await createTestTenant(db, 'dberr')).addUser('alice');
  });

  afterAll(async () => {
    await db?.close();
  });

  const failure = async (work: Parameters<TestDatabase['tx']['inTenant']>[1]): Promise<unknown> =>
    db.tx.inTenant(alice, work).then(
      () => undefined,
      (error: unknown) => error,
    );

  it('answers a statement timeout with 503 and Retry-After, never 500', async () => {
    const error = await failure(async (tx) => {
      await tx.query(`SET LOCAL statement_timeout = '20ms'`);
      await tx.query(`SELECT pg_sleep(1)`);
    });
    expect(toErrorResponse(error)).toEqual({
      status: 503,
      body: { code: 'statement_timeout', detail: expect.stringContaining('did not answer in time') },
      headers: { 'Retry-After': '5' },
    });
  });

  it('answers a lock timeout as a busy database', async () => {
    const holder = await db.dataSource.createQueryRunner();
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query(`SELECT pg_advisory_xact_lock(424242)`);
    try {
      const error = await failure(async (tx) => {
        await tx.query(`SET LOCAL lock_timeout = '20ms'`);
        await tx.query(`SELECT pg_advisory_xact_lock(424242)`);
      });
      expect(toErrorResponse(error)).toMatchObject({ status: 503, body: { code: 'database_busy' } });
    } finally {
      await holder.query('ROLLBACK');
      await holder.release();
    }
  });

  it('answers a connection the server closed under a transaction (a restart) with 503, never 500', async () => {
    // What every open transaction gets from `pg_ctlcluster restart`: 57P01, admin shutdown.
    const admin = new Client({ connectionString: inject('databaseUrl') });
    await admin.connect();
    const error = await failure(async (tx) => {
      const {
        rows: [{ pid }],
      } = await tx.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`);
      await admin.query(`SELECT pg_terminate_backend($1)`, [pid]);
      await tx.query(`SELECT 1`);
    }).finally(() => admin.end());
    expect(toErrorResponse(error)).toMatchObject({
      status: 503,
      body: { code: 'database_unavailable', detail: expect.stringContaining('Idempotency-Key') },
      headers: { 'Retry-After': '2' },
    });
  });

  it('answers a database nobody listens for (down, not back yet) with 503', async () => {
    const port = await freePort();
    const error = await new Client({ host: '127.0.0.1', port, user: 'postgres' }).connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(toErrorResponse(error)).toMatchObject({ status: 503, body: { code: 'database_unavailable' } });
  });
});
