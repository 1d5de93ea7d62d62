import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client as PgClient } from 'pg';
import { client } from '../support/http-client';
import { teamFixture } from '../support/e2e-env';
import {
  startApiProcess,
  startWorkerProcess,
  type ApiProcess,
  type WorkerProcess,
} from '../support/processes';
import { PrivateRedis } from '../support/private-redis';
import { waitFor } from '../support/wait-for';

interface IndexRow {
  memory_id: string;
  status: string;
  times_indexed: number;
  up_to_date: boolean;
}

describe('acceptance 4: two APIs and two workers share Postgres and Redis', () => {
  let redis: PrivateRedis;
  let apis: ApiProcess[] = [];
  let workers: WorkerProcess[] = [];
  let pg: PgClient;
  const team = teamFixture({ OUTBOX_POLL_INTERVAL_MS: '200' });

  /** Index state of every memory in this test's tenant (the superuser connection bypasses RLS). */
  const indexRows = async (): Promise<IndexRow[]> => {
    const { rows } = await pg.query<IndexRow>(
      `SELECT s.memory_id::text AS memory_id, s.status, s.times_indexed,
              s.indexed_hash IS NOT DISTINCT FROM s.wanted_hash AS up_to_date
         FROM memory_index_state s JOIN tenants t ON t.id = s.tenant_id
        WHERE t.slug = $1 ORDER BY s.memory_id`,
      [team.tenant],
    );
    return rows;
  };

  const settled = async (expected: number) => {
    const rows = await indexRows();
    const done = rows.length === expected && rows.every((r) => r.status === 'indexed' && r.up_to_date);
    return done ? rows : undefined;
  };

  beforeAll(async () => {
    pg = new PgClient({ connectionString: inject('databaseUrl') });
    await pg.connect();
    redis = await PrivateRedis.create();
    await redis.start();
    const env = { ...team.env, REDIS_URL: redis.url };
    apis = await Promise.all([startApiProcess(env), startApiProcess(env)]);
    workers = await Promise.all([
      startWorkerProcess({ ...env, WORKER_CONCURRENCY: '2' }),
      startWorkerProcess({ ...env, WORKER_CONCURRENCY: '2' }),
    ]);
  });

  afterAll(async () => {
    // A process already stopped by a test has exited on a signal; stopping it again would wait forever.
    const running = [...apis, ...workers].filter(
      (p) => p.child.exitCode === null && p.child.signalCode === null,
    );
    await Promise.all(running.map((p) => p.stop()));
    await redis?.stop();
    await pg?.end();
  });

  it('indexes every memory exactly once in effect, also for writes made while Redis was down', async () => {
    const via = (i: number) => client(apis[i % 2].url, team.keys.alice);
    const store = async (i: number, label: string): Promise<number> => {
      const res = await via(i).post<{ id: number }>('/api/memories', {
        content: `${label} ${i} ${randomUUID()}`,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.id;
    };

    // 1. Normal operation: writes through both APIs, consumed by both workers.
    const before = await Promise.all(Array.from({ length: 16 }, (_, i) => store(i, 'before outage')));
    await waitFor('first round indexed', () => settled(before.length));

    // 2. Edits re-index exactly once more.
    const edited = before.slice(0, 3);
    for (const [n, id] of edited.entries()) {
      const res = await via(n).put(`/api/memories/${id}`, { content: `edited ${id} ${randomUUID()}` });
      expect(res.status).toBe(200);
    }
    await waitFor('edits indexed', () => settled(before.length));

    // 3. Redis goes away: the APIs keep accepting writes (row and outbox row commit together).
    await redis.stop();
    const during = [];
    for (let i = 0; i < 8; i += 1) during.push(await store(i, 'during outage'));
    const editedDuringOutage = before[5];
    const put = await via(1).put(`/api/memories/${editedDuringOutage}`, {
      content: `offline edit ${randomUUID()}`,
    });
    expect(put.status).toBe(200);
    await new Promise((r) => setTimeout(r, 2_000));
    const waiting = await indexRows();
    expect(waiting.filter((r) => r.status === 'pending').length).toBe(during.length + 1);

    // 4. Redis is back (empty: no persistence): the relays deliver the backlog, the workers run it.
    await redis.start();
    const rows = await waitFor('backlog indexed after the outage', () =>
      settled(before.length + during.length),
    );

    const timesIndexed = new Map(rows.map((r) => [Number(r.memory_id), r.times_indexed]));
    for (const id of [...before, ...during]) {
      const expected = edited.includes(id) || id === editedDuringOutage ? 2 : 1;
      expect(timesIndexed.get(id), `memory ${id}`).toBe(expected);
    }
    // Redis came back empty, so a worker also swept at once: a memory whose job was relayed just
    // before that sweep may have a second job on its way (it writes nothing); the outbox drains.
    await waitFor('the outbox to drain', async () => {
      const { rows: undispatched } = await pg.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbox o JOIN tenants t ON t.id = o.tenant_id
          WHERE t.slug = $1 AND o.dispatched_at IS NULL`,
        [team.tenant],
      );
      return undispatched[0].n === 0 ? true : undefined;
    });
    // …and nothing was indexed twice meanwhile.
    const after = new Map((await indexRows()).map((r) => [Number(r.memory_id), r.times_indexed]));
    expect(after).toEqual(timesIndexed);

    // Both workers report their job metrics on the internal port.
    const completed = await Promise.all(
      workers.map(async (w) => {
        const text = await (await fetch(`${w.healthUrl}/metrics`)).text();
        // Other jobs (the scheduled tombstone purge) report their own series; count index batches only.
        const line = text
          .split('\n')
          .find((l) => l.startsWith('memsvc_jobs_completed_total{') && l.includes('"memory.index-batch"'));
        return Number(line?.split(' ').at(-1) ?? 0);
      }),
    );
    // The relays coalesce index rows into batches: fewer jobs than memories, but at least one per round.
    expect(completed.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(3);
  });

  it('drains a worker on SIGTERM and leaves the other one serving', async () => {
    const [first, second] = workers;
    const started = Date.now();
    const code = await first.stop('SIGTERM');
    // Nest re-raises the signal after its shutdown hooks, so a clean drain ends by SIGTERM (or 0).
    expect(code === 0 || first.child.signalCode === 'SIGTERM', first.output()).toBe(true);
    // Active jobs get the shutdown grace (SHUTDOWN_GRACE_MS, 10 s by default), then the connections
    // close; the margin is for closing them on a loaded machine. A worker that hangs fails this.
    expect(Date.now() - started).toBeLessThan(10_000 + 5_000);
    expect(first.output()).not.toMatch(/"level":(50|60)/);

    const res = await client(apis[0].url, team.keys.alice).post<{ id: number }>('/api/memories', {
      content: `after one worker left ${randomUUID()}`,
    });
    expect(res.status).toBe(200);
    const row = await waitFor('the remaining worker to index the new memory', async () =>
      (await indexRows()).find((r) => Number(r.memory_id) === res.body.id && r.status === 'indexed'),
    );
    expect(row.times_indexed).toBe(1);
    // Readiness is a probe with a failure threshold: one slow answer on a loaded machine may say 503
    // (each check has 2 s); the remaining worker must answer ready again, not stay unready.
    let last = '';
    await waitFor(
      'the remaining worker to report ready',
      async () => {
        const ready = await fetch(`${second.healthUrl}/health/ready`);
        last = `${ready.status} ${await ready.text()}`;
        return ready.status === 200 ? true : undefined;
      },
      15_000,
      500,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; last answer: ${last}`);
    });
  });
});
