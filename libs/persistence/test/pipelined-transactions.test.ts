import { Client } from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { createDataSource, initializeDataSource, TransactionRunner } from '@app/persistence';
import { spyOnQueries } from '@app/testing';

const scope = {
  tenantId: '00000000-0000-4000-8000-0000000000a1',
  userId: '00000000-0000-4000-8000-0000000000b2',
};

/**
 * Against a real server the runner sends a transaction's opening (BEGIN, role and row-level
 * security settings) with its first statement, and COMMIT with a statement marked `last`. What a
 * caller relies on must not change: the statement runs as the application role with the caller's
 * settings, a failure anywhere commits nothing, and the connection serves the next request.
 */
describe('pipelined transactions', () => {
  const table = `pipeline_probe_${process.pid}`;
  let dataSource: DataSource;
  let runner: TransactionRunner;
  let observer: Client;
  let restore: () => void;
  let sent: Array<{ sql: string; behind: boolean }> = [];

  beforeAll(async () => {
    dataSource = await initializeDataSource(
      createDataSource({
        url: inject('databaseUrl'),
        poolSize: 1,
        statementTimeoutMs: 5_000,
        applicationName: 'pipelined-transactions-test',
      }),
    );
    runner = new TransactionRunner(dataSource, 'memory_app', { preparedStatements: true, pipelining: true });
    // No constraint of any kind: the constraint inventory of other suites never sees this table.
    await dataSource.query(`CREATE TABLE ${table} (id integer, who text, role text)`);
    await dataSource.query(`GRANT SELECT, INSERT ON ${table} TO memory_app`);
    observer = new Client({ connectionString: inject('databaseUrl') });
    await observer.connect();
    restore = spyOnQueries(({ client, sql, behind }) => {
      if (client !== observer) sent.push({ sql, behind });
    });
  });

  afterEach(() => {
    sent = [];
  });

  afterAll(async () => {
    restore?.();
    await observer?.query(`DROP TABLE IF EXISTS ${table}`);
    await observer?.end();
    await dataSource?.destroy();
  });

  const rows = async (id: number) =>
    (await observer.query(`SELECT who, role FROM ${table} WHERE id = $1`, [id])).rows;

  /** Round trips: statements sent while none of the connection's was waiting for its answer. */
  const roundTrips = () => sent.filter((s) => !s.behind).length;

  it("sends the opening with the first statement, which still runs as the application role with the caller's settings", async () => {
    const seen = await runner.inTenant(scope, async (tx) => {
      const { rows } = await tx.query<{ who: string; role: string }>(
        `SELECT current_setting('app.user_id') AS who, current_user AS role`,
      );
      return rows[0];
    });
    expect(seen).toEqual({ who: scope.userId, role: 'memory_app' });
    expect(sent.map((s) => s.sql.split(/[\s;]/)[0])).toEqual(['BEGIN', 'SELECT', 'COMMIT']);
    expect(roundTrips()).toBe(2);
  });

  it('commits with a statement marked last: the row is visible elsewhere before the work returns, and nothing may follow', async () => {
    const later = await runner.inTenant(scope, async (tx) => {
      await tx.query(
        `INSERT INTO ${table} (id, who, role) VALUES (1, current_setting('app.user_id'), current_user)`,
        [],
        { last: true },
      );
      expect(await rows(1)).toEqual([{ who: scope.userId, role: 'memory_app' }]);
      return tx.query('SELECT 1').then(
        () => 'ran',
        (error: Error) => error.message,
      );
    });
    expect(later).toMatch(/committed/);
    expect(roundTrips()).toBe(1);
  });

  it('writes the opening, the statement and COMMIT to the socket at once', async () => {
    // The pool's one connection, as the runner uses it.
    const pool = (dataSource.driver as unknown as { master: { _clients: Client[] } }).master;
    const stream = (pool._clients[0] as unknown as { connection: { stream: Record<string, unknown> } })
      .connection.stream;
    const writes: number[] = [];
    type Write = (this: unknown, ...args: unknown[]) => unknown;
    const originals = { _write: stream._write as Write, _writev: stream._writev as Write };
    stream._write = function (this: unknown, ...args: unknown[]) {
      writes.push(1);
      return originals._write.apply(this, args);
    };
    stream._writev = function (this: unknown, chunks: unknown[], ...rest: unknown[]) {
      writes.push(chunks.length);
      return originals._writev.apply(this, [chunks, ...rest]);
    };
    try {
      await runner.inTenant(scope, (tx) =>
        tx.query(`INSERT INTO ${table} (id, who, role) VALUES (30, 'at once', current_user)`, [], {
          last: true,
        }),
      );
    } finally {
      Object.assign(stream, originals);
    }
    expect(roundTrips()).toBe(1);
    // One write to the socket, carrying every message of the three statements.
    expect(writes).toHaveLength(1);
    expect(writes[0]).toBeGreaterThanOrEqual(3);
    expect(await rows(30)).toEqual([{ who: 'at once', role: 'memory_app' }]);
  });

  it('a statement that fails beside its COMMIT commits nothing of the transaction, and the connection serves the next one', async () => {
    const failure = await runner
      .inTenant(scope, async (tx) => {
        await tx.query(`INSERT INTO ${table} (id, who) VALUES (2, 'written first')`);
        await tx.query('SELECT 1 / 0', [], { last: true });
      })
      .catch((error: unknown) => error);
    // The statement's own error, not the COMMIT's (which the server answered with ROLLBACK).
    expect(String(failure)).toMatch(/division by zero/);
    expect(await rows(2)).toEqual([]);
    expect(
      await runner.inTenant(scope, async (tx) => (await tx.query<{ n: number }>('SELECT 7 AS n')).rows),
    ).toEqual([{ n: 7 }]);
  });

  it('a failing opening stops the statement sent with it: nothing runs without the caller settings or as the owner', async () => {
    const broken = new TransactionRunner(dataSource, 'no_such_role', {
      preparedStatements: true,
      pipelining: true,
    });
    const failure = await broken
      .inTenant(scope, (tx) =>
        tx.query(`INSERT INTO ${table} (id, who, role) VALUES (3, 'sent with the opening', current_user)`),
      )
      .catch((error: unknown) => error);
    expect(String(failure)).toMatch(/no_such_role/);
    expect(await rows(3)).toEqual([]);
    // The connection left no transaction open behind it.
    expect(
      await runner.inTenant(scope, async (tx) => (await tx.query<{ n: number }>('SELECT 8 AS n')).rows),
    ).toEqual([{ n: 8 }]);
  });

  it('sends a statement marked withNext in the next one’s round trip and runs it first: a lock it takes is held when the next one reads', async () => {
    const [locked, inserted] = await runner.inTenant(scope, (tx) =>
      Promise.all([
        tx.query(`SELECT 'held' AS lock FROM (SELECT pg_advisory_xact_lock(4242)) l`, [], { withNext: true }),
        tx.query<{ who: string }>(
          `INSERT INTO ${table} (id, who, role)
             SELECT 40, (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242
                            AND pid = pg_backend_pid() AND granted)::text, current_user
           RETURNING who`,
          [],
          { last: true },
        ),
      ]),
    );
    expect(locked.rows).toEqual([{ lock: 'held' }]);
    expect(inserted.rows).toEqual([{ who: '1' }]);
    expect(sent.map((s) => s.sql.split(/[\s;(]/)[0])).toEqual(['BEGIN', 'SELECT', 'INSERT', 'COMMIT']);
    expect(roundTrips()).toBe(1);
    expect(await rows(40)).toEqual([{ who: '1', role: 'memory_app' }]);
  });

  it('a statement marked withNext that fails fails the statement it went with, and nothing commits', async () => {
    const outcomes = await runner
      .inTenant(scope, (tx) =>
        Promise.allSettled([
          tx.query('SELECT 1 / 0', [], { withNext: true }),
          tx.query(`INSERT INTO ${table} (id, who) VALUES (41, 'after a failure')`, [], { last: true }),
        ]),
      )
      .catch((error: unknown) => error);
    expect(Array.isArray(outcomes)).toBe(true);
    const reasons = (outcomes as PromiseSettledResult<unknown>[]).map((o) =>
      o.status === 'rejected' ? String(o.reason) : 'fulfilled',
    );
    expect(reasons[0]).toMatch(/division by zero/);
    expect(reasons[1]).toMatch(/division by zero/);
    expect(await rows(41)).toEqual([]);
    expect(
      await runner.inTenant(scope, async (tx) => (await tx.query<{ n: number }>('SELECT 9 AS n')).rows),
    ).toEqual([{ n: 9 }]);
  });

  it('a statement marked withNext with nothing after it in its turn is sent alone', async () => {
    const answer = await runner.inTenant(scope, async (tx) => {
      const { rows: first } = await tx.query<{ n: number }>('SELECT 5 AS n', [], { withNext: true });
      await new Promise((resolve) => setTimeout(resolve, 5));
      await tx.query(`INSERT INTO ${table} (id, who) VALUES (42, 'later')`, [], { last: true });
      return first;
    });
    expect(answer).toEqual([{ n: 5 }]);
    expect(await rows(42)).toEqual([{ who: 'later', role: null }]);
  });

  it('a statement marked withNext is never sent when the work fails before the next one, and the connection serves the next transaction', async () => {
    let held: Promise<unknown> | undefined;
    const failure = await runner
      .inTenant(scope, async (tx) => {
        held = tx.query(`INSERT INTO ${table} (id, who) VALUES (43, 'held')`, [], { withNext: true });
        held.catch(() => undefined);
        throw new Error('the work failed first');
      })
      .catch((error: unknown) => error);
    expect(String(failure)).toMatch(/the work failed first/);
    await expect(held).rejects.toThrow(/ended before this statement was sent/);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.filter((s) => s.sql.includes('INSERT'))).toEqual([]);
    expect(await rows(43)).toEqual([]);
    expect(
      await runner.inTenant(scope, async (tx) => (await tx.query<{ n: number }>('SELECT 10 AS n')).rows),
    ).toEqual([{ n: 10 }]);
  });

  it('work that sends no statement opens no transaction', async () => {
    expect(await runner.inTenant(scope, async () => 'nothing to do')).toBe('nothing to do');
    expect(sent).toEqual([]);
  });
});
