import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client as PgClient } from 'pg';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { startApiProcess, startWorkerProcess, type RunningProcess } from '../support/processes';
import { waitFor } from '../support/wait-for';

/**
 * SIGTERM against the built processes. Work is held "in flight" by a row lock taken from this
 * test's own connection: the request or job waits on it inside the process, exactly where a slow
 * query would, and finishes once the test rolls its transaction back.
 */
describe('graceful shutdown (real processes)', () => {
  let pg: PgClient;
  const running: RunningProcess[] = [];
  const locks: RowLock[] = [];

  interface RowLock {
    /** Resolves once some other backend is waiting for this lock. */
    waitUntilBlocking(what: string): Promise<void>;
    release(): Promise<void>;
  }

  const lockRow = async (sql: string, params: unknown[]): Promise<RowLock> => {
    const holder = new PgClient({ connectionString: inject('databaseUrl') });
    await holder.connect();
    await holder.query('BEGIN');
    const { rowCount } = await holder.query(sql, params);
    expect(rowCount).toBe(1);
    const { rows } = await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    let released = false;
    const lock: RowLock = {
      waitUntilBlocking: (what) =>
        waitFor(what, async () => {
          const { rows: waiting } = await pg.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
            [rows[0].pid],
          );
          return waiting[0].n > 0 ? true : undefined;
        }).then(() => undefined),
      release: async () => {
        if (released) return;
        released = true;
        await holder.query('ROLLBACK');
        await holder.end();
      },
    };
    locks.push(lock);
    return lock;
  };

  const exitOf = (proc: RunningProcess) =>
    once(proc.child, 'exit') as Promise<[number | null, string | null]>;

  const indexState = async (memoryId: number) => {
    const { rows } = await pg.query<{ status: string; attempts: number; times_indexed: number }>(
      'SELECT status, attempts, times_indexed FROM memory_index_state WHERE memory_id = $1',
      [memoryId],
    );
    return rows[0];
  };

  /** Polls a readiness endpoint until it answers 503, and returns that body. */
  const notReadyBody = <T>(url: string) =>
    waitFor(
      `${url} to report not ready`,
      async () => {
        const res = await fetch(url).catch(() => undefined);
        return res?.status === 503 ? ((await res.json()) as T) : undefined;
      },
      5_000,
    );

  const dispatched = (memoryId: number) =>
    waitFor(`the job of memory ${memoryId} to reach Redis`, async () => {
      const { rows } = await pg.query(
        `SELECT 1 FROM outbox WHERE payload->>'memoryId' = $1 AND dispatched_at IS NOT NULL`,
        [String(memoryId)],
      );
      return rows.length > 0 ? true : undefined;
    });

  beforeAll(async () => {
    pg = new PgClient({ connectionString: inject('databaseUrl') });
    await pg.connect();
  });

  afterEach(async () => {
    await Promise.all(locks.splice(0).map((l) => l.release()));
    const alive = running.splice(0).filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    await Promise.all(alive.map((p) => p.stop('SIGKILL')));
  });

  afterAll(async () => pg?.end());

  it('API: a request in flight during SIGTERM completes with 200; readiness is 503 before the listener closes', async () => {
    const team = teamFixture();
    const api = await startApiProcess({ ...team.env, SHUTDOWN_DELAY_MS: '1500', SHUTDOWN_GRACE_MS: '20000' });
    running.push(api);
    const alice = client(api.url, team.keys.alice);
    const created = await alice.post<{ id: number }>('/api/memories', { content: `draft ${randomUUID()}` });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.id;

    const lock = await lockRow('SELECT id FROM memories WHERE id = $1 FOR UPDATE', [id]);
    const content = `written while the API shut down ${randomUUID()}`;
    const inFlight = alice.put(`/api/memories/${id}`, { content });
    await lock.waitUntilBlocking('the update to wait on the row lock inside the API');

    const exited = exitOf(api);
    api.child.kill('SIGTERM');

    // Still listening, but no longer ready: load balancers stop sending traffic here.
    const notReady = await notReadyBody<{ error: Record<string, unknown> }>(`${api.url}/health/ready`);
    expect(notReady.error.lifecycle).toEqual({ status: 'down', message: 'shutting down' });

    // Then the listener closes: new connections are refused while the update is still running.
    await waitFor(
      'the listener to close',
      () =>
        fetch(`${api.url}/health`).then(
          () => undefined,
          () => true,
        ),
      10_000,
    );
    const pending = await Promise.race([inFlight.then(() => 'settled'), Promise.resolve('pending')]);
    expect(pending).toBe('pending');

    await lock.release();
    const res = await inFlight;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [code] = await exited;
    expect(code, api.output()).toBe(0);
    // The failed readiness checks during the drain are expected; nothing else may log an error.
    const errors = api
      .output()
      .split('\n')
      .filter((line) => /"level":(50|60)/.test(line) && !line.includes('Health Check has failed'));
    expect(errors).toEqual([]);

    const { rows } = await pg.query<{ content: string }>('SELECT content FROM memories WHERE id = $1', [id]);
    expect(rows[0].content).toBe(content);
  });

  it('API: during the drain delay REST and MCP responses end their keep-alive connection, so the process exits 0', async () => {
    const team = teamFixture();
    // A budget shorter than the 65 s keep-alive: a connection left open would force exit code 1.
    const api = await startApiProcess({ ...team.env, SHUTDOWN_DELAY_MS: '2000', SHUTDOWN_GRACE_MS: '3000' });
    running.push(api);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, body?: unknown) =>
      new Promise<{ status: number; connection: string | undefined }>((resolvePromise, reject) => {
        const req = request(
          new URL(path, api.url),
          {
            method,
            agent,
            headers: {
              authorization: `Bearer ${team.keys.alice}`,
              accept: 'application/json, text/event-stream',
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              resolvePromise({ status: res.statusCode ?? 0, connection: res.headers.connection }),
            );
          },
        );
        req.on('error', reject);
        req.end(body === undefined ? undefined : JSON.stringify(body));
      });
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-03-26',
        capabilities: {},
        clientInfo: { name: 'drain-check', version: '1.0.0' },
      },
    };
    try {
      // Before SIGTERM both keep their connection.
      expect(await send('GET', '/api/memories')).toEqual({ status: 200, connection: 'keep-alive' });
      expect(await send('POST', '/mcp', initialize)).toEqual({ status: 200, connection: 'keep-alive' });

      const exited = exitOf(api);
      api.child.kill('SIGTERM');
      await notReadyBody(`${api.url}/health/ready`);
      expect(await send('GET', '/api/memories')).toEqual({ status: 200, connection: 'close' });
      // The MCP transport writes its response outside Fastify's reply hooks.
      expect(await send('POST', '/mcp', initialize)).toEqual({ status: 200, connection: 'close' });
      const [code] = await exited;
      expect(code, api.output()).toBe(0);
    } finally {
      agent.destroy();
    }
  });

  it('worker: a job in flight during SIGTERM completes exactly once; a queued job waits for the next worker', async () => {
    const team = teamFixture({ OUTBOX_POLL_INTERVAL_MS: '200' });
    const api = await startApiProcess(team.env);
    running.push(api);
    const alice = client(api.url, team.keys.alice);
    const store = async (label: string): Promise<number> => {
      const res = await alice.post<{ id: number }>('/api/memories', { content: `${label} ${randomUUID()}` });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.id;
    };

    // No worker yet: the job waits in Redis. Lock its index state so that, once a worker takes
    // it, the job stops inside its transaction.
    const inFlight = await store('in flight at SIGTERM');
    await dispatched(inFlight);
    const lock = await lockRow('SELECT 1 FROM memory_index_state WHERE memory_id = $1 FOR UPDATE', [
      inFlight,
    ]);
    const worker = await startWorkerProcess({
      ...team.env,
      WORKER_CONCURRENCY: '1',
      SHUTDOWN_GRACE_MS: '20000',
    });
    running.push(worker);
    await lock.waitUntilBlocking('the worker to take the job');

    // With concurrency 1 the next job stays waiting in the queue behind the blocked one.
    const queued = await store('queued at SIGTERM');
    await dispatched(queued);

    const exited = exitOf(worker);
    worker.child.kill('SIGTERM');
    const draining = await notReadyBody<{ checks: { draining: boolean } }>(
      `${worker.healthUrl}/health/ready`,
    );
    expect(draining.checks.draining).toBe(true);
    expect((await fetch(`${worker.healthUrl}/health/live`)).status).toBe(200);
    expect(worker.child.exitCode).toBeNull();

    await lock.release();
    const [code] = await exited;
    expect(code, worker.output()).toBe(0);
    expect(worker.output()).not.toMatch(/"level":(50|60)/);
    expect(await indexState(inFlight)).toMatchObject({ status: 'indexed', attempts: 1, times_indexed: 1 });
    expect(await indexState(queued)).toMatchObject({ status: 'pending', times_indexed: 0 });

    // The queued job was not lost: the next worker runs it, and nothing runs twice.
    running.push(await startWorkerProcess(team.env));
    await waitFor('the next worker to index the queued memory', async () =>
      (await indexState(queued)).status === 'indexed' ? true : undefined,
    );
    expect(await indexState(queued)).toMatchObject({ attempts: 1, times_indexed: 1 });
    expect(await indexState(inFlight)).toMatchObject({ attempts: 1, times_indexed: 1 });
  });
});
