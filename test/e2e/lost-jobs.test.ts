import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Client as PgClient } from 'pg';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { PrivateRedis } from '../support/private-redis';
import {
  startApiProcess,
  startWorkerProcess,
  type ApiProcess,
  type WorkerProcess,
} from '../support/processes';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database';
import { waitFor } from '../support/wait-for';

interface IndexRow {
  status: string;
  times_indexed: number;
}

/** Index state of the given memories (the superuser connection bypasses RLS). */
async function indexStates(databaseUrl: string, ids: readonly number[]): Promise<IndexRow[]> {
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const { rows } = await pg.query<IndexRow>(
      `SELECT status, times_indexed FROM memory_index_state WHERE memory_id = ANY($1::bigint[])`,
      [ids],
    );
    return rows;
  } finally {
    await pg.end();
  }
}

const allIndexedOnce = (rows: IndexRow[], count: number) =>
  rows.length === count && rows.every((r) => r.status === 'indexed' && r.times_indexed === 1);

async function storeMany(url: string, key: string, count: number, label: string): Promise<number[]> {
  const api = client(url, key);
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await api.post<{ id: number }>('/api/memories', { content: `${label} ${i} ${randomUUID()}` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(res.body.id);
  }
  return ids;
}

describe('jobs lost from Redis, and installations sharing one Redis', () => {
  let redis: PrivateRedis | undefined;
  let processes: (ApiProcess | WorkerProcess)[] = [];
  const scratch: ScratchDatabase[] = [];

  afterEach(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    processes = [];
    await redis?.stop();
    redis = undefined;
  });

  afterAll(async () => {
    await Promise.all(scratch.map((db) => db.drop()));
  });

  /**
   * The scheduled sweep is 10 minutes away in these tests: whatever brings lost jobs back within
   * 30 s is the worker noticing that Redis lost its data.
   */
  const sweepFarAway = { INDEX_RECONCILE_AFTER_MS: '600000', INDEX_RECONCILE_EVERY_MS: '600000' };

  /** Stores memories while no worker takes jobs, and waits until some of their jobs sit in Redis. */
  async function storeWhileJobsWait(apiUrl: string, key: string, label: string): Promise<number[]> {
    const ids = await storeMany(apiUrl, key, 40, label);
    const raw = new Redis(redis!.url);
    try {
      await waitFor('jobs in Redis', async () =>
        (await raw.keys('*memory.index-batch:*')).length > 0 ? true : undefined,
      );
    } finally {
      raw.disconnect();
    }
    return ids;
  }

  async function flushAll(): Promise<void> {
    const raw = new Redis(redis!.url);
    try {
      await raw.flushall();
    } finally {
      raw.disconnect();
    }
  }

  /** Every memory indexed once within 30 s (the scheduled sweep would take 10 minutes). */
  const indexedSoon = (ids: number[]) =>
    waitFor(
      'every acknowledged memory indexed',
      async () => {
        const states = await indexStates(inject('databaseUrl'), ids);
        return allIndexedOnce(states, ids.length) ? states : undefined;
      },
      30_000,
    );

  it('re-enqueues at its start what a Redis flushed while no worker ran had held, and embeds each once', async () => {
    redis = await PrivateRedis.create();
    await redis.start();
    const team = teamFixture({ REDIS_URL: redis.url, OUTBOX_POLL_INTERVAL_MS: '100', ...sweepFarAway });
    const api = await startApiProcess(team.env);
    processes.push(api);
    // No worker yet: the relay moves index batches to Redis, where they wait (once a few wait, it
    // keeps the rest in the outbox to coalesce them).
    const ids = await storeWhileJobsWait(api.url, team.keys.alice, 'wiped');
    // The queue is lost (a flushed or failed-over Redis): every waiting job is gone.
    await flushAll();
    // The backlog is visible to monitoring while nothing works on it.
    const metrics = await (await fetch(`${api.url}/metrics`)).text();
    const pending = /^memsvc_index_pending(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1];
    expect(Number(pending)).toBeGreaterThanOrEqual(ids.length);
    expect(metrics).toMatch(/^memsvc_index_pending_oldest_seconds(?:\{[^}]*\})? \d/m);

    processes.push(await startWorkerProcess(team.env));
    expect(await indexedSoon(ids)).toHaveLength(ids.length);
  });

  it('re-enqueues within seconds what a FLUSHALL took from under a running worker', async () => {
    redis = await PrivateRedis.create();
    await redis.start();
    const team = teamFixture({ REDIS_URL: redis.url, OUTBOX_POLL_INTERVAL_MS: '100', ...sweepFarAway });
    const api = await startApiProcess(team.env);
    const worker = await startWorkerProcess(team.env);
    processes.push(api, worker);
    // The worker stays connected but takes no job while the memories are stored and Redis is wiped.
    worker.child.kill('SIGSTOP');
    try {
      const ids = await storeWhileJobsWait(api.url, team.keys.alice, 'flushed live');
      await flushAll();
      worker.child.kill('SIGCONT');
      expect(await indexedSoon(ids)).toHaveLength(ids.length);
    } finally {
      worker.child.kill('SIGCONT');
    }
  });

  it('re-enqueues within seconds what a Redis restarted without its data had held', async () => {
    redis = await PrivateRedis.create();
    await redis.start();
    const team = teamFixture({ REDIS_URL: redis.url, OUTBOX_POLL_INTERVAL_MS: '100', ...sweepFarAway });
    const api = await startApiProcess(team.env);
    const worker = await startWorkerProcess(team.env);
    processes.push(api, worker);
    worker.child.kill('SIGSTOP');
    try {
      const ids = await storeWhileJobsWait(api.url, team.keys.alice, 'restarted');
      // No persistence: the restarted Redis is empty, and every connection is made again.
      await redis.stop();
      await redis.start();
      worker.child.kill('SIGCONT');
      expect(await indexedSoon(ids)).toHaveLength(ids.length);
    } finally {
      worker.child.kill('SIGCONT');
    }
  });

  it('embeds every memory of two databases that share one Redis and one queue prefix', async () => {
    redis = await PrivateRedis.create();
    await redis.start();
    const databases = await Promise.all([
      createScratchDatabase(inject('adminDatabaseUrl'), 'shared_redis_a'),
      createScratchDatabase(inject('adminDatabaseUrl'), 'shared_redis_b'),
    ]);
    scratch.push(...databases);
    // Same Redis, same prefix; the sweep is far away, so only the job ids and queues are tested.
    const teams = databases.map((db) =>
      teamFixture({
        DATABASE_URL: db.url,
        REDIS_URL: redis!.url,
        QUEUE_PREFIX: 'shared',
        OUTBOX_POLL_INTERVAL_MS: '100',
        INDEX_RECONCILE_AFTER_MS: '600000',
      }),
    );
    for (const team of teams) {
      processes.push(await startApiProcess(team.env), await startWorkerProcess(team.env));
    }
    const apis = processes.filter((p): p is ApiProcess => 'url' in p);
    // Both databases number their outbox rows from 1: the job ids collided and one side's jobs were dropped.
    const [idsA, idsB] = await Promise.all(
      apis.map((api, n) => storeMany(api.url, teams[n].keys.alice, 30, `shared ${n}`)),
    );
    for (const [n, ids] of [idsA, idsB].entries()) {
      await waitFor(
        `database ${n} indexed`,
        async () => (allIndexedOnce(await indexStates(databases[n].url, ids), ids.length) ? true : undefined),
        30_000,
      );
    }
  });
});
