import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FaultProxy } from '@app/testing';
import { createDataSource, DatabaseUnavailableError, TransactionRunner } from '@app/persistence';

/**
 * The transaction runner over a link that stops answering or breaks: the work fails as
 * `database_unavailable` instead of waiting for ever or failing as an unknown error, and the pool
 * serves again once the link is back (no connection with a hung statement is handed out again).
 */
describe('transactions while Postgres is unreachable', () => {
  let proxy: FaultProxy;
  let dataSource: DataSource;
  let runner: TransactionRunner;
  const ping = (options: { unbounded?: boolean } = {}) =>
    runner.asSystem(
      async (tx) =>
        (await tx.query<{ timeout: string }>(`SELECT current_setting('statement_timeout') AS timeout`))
          .rows[0]!.timeout,
      options,
    );
  const failure = (work: Promise<unknown>) =>
    work.then(
      () => undefined,
      (error: unknown) => error,
    );

  beforeAll(async () => {
    const url = inject('databaseUrl');
    proxy = await FaultProxy.start({ target: new URL(url).host });
    dataSource = createDataSource({
      url: proxy.rewrite(url),
      poolSize: 2,
      statementTimeoutMs: 1_000,
      applicationName: 'test',
    });
    await dataSource.initialize();
    runner = new TransactionRunner(dataSource, 'memory_app', { answerTimeoutMs: 1_500 });
  });
  afterAll(async () => {
    proxy.heal();
    await dataSource.destroy();
    await proxy.close();
  });

  it('fails as unavailable when no answer comes, and serves again once the link heals', async () => {
    expect(await ping()).toBe('1s');
    proxy.set({ mode: 'blackhole' });
    const errors = await Promise.all([failure(ping()), failure(ping()), failure(ping())]);
    for (const error of errors) {
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect(error).toMatchObject({ code: 'database_unavailable', kind: 'unavailable' });
    }
    proxy.heal();
    // More transactions than the pool has connections: none lands on a connection given up on.
    expect(await Promise.all([ping(), ping(), ping(), ping()])).toEqual(['1s', '1s', '1s', '1s']);
  });

  it('gives up a probe that gets no answer without keeping its pooled connection', async () => {
    const pool = (dataSource.driver as unknown as { master: { totalCount: number; idleCount: number } }).master;
    await Promise.all([ping(), ping()]);
    proxy.set({ mode: 'blackhole' });
    try {
      for (let i = 0; i < 3; i++) {
        // More probes than the pool has connections: each one gets a connection, so none was kept.
        expect(await failure(runner.ping(300))).toBeInstanceOf(DatabaseUnavailableError);
      }
      expect(pool.totalCount - pool.idleCount).toBe(0);
    } finally {
      proxy.heal();
    }
    await runner.ping(1_000);
  });

  it('fails as unavailable when the connection is reset under a statement', async () => {
    await Promise.all([ping(), ping()]);
    proxy.set({ mode: 'reset', afterBytes: 1 });
    expect(await failure(ping())).toBeInstanceOf(DatabaseUnavailableError);
    proxy.heal();
    expect(await ping()).toBe('1s');
  });

  it('waits as long as it takes for unbounded maintenance work, which runs without a statement timeout', async () => {
    // Two pooled connections, so neither transaction needs a handshake over the slow link; each
    // round trip takes 1.6 s: past the answer timeout of a bounded transaction.
    await Promise.all([ping(), ping()]);
    proxy.set({ mode: 'latency', latencyMs: 800 });
    try {
      expect(await failure(ping())).toBeInstanceOf(DatabaseUnavailableError);
      expect(await ping({ unbounded: true })).toBe('0');
    } finally {
      proxy.heal();
    }
  });
});
