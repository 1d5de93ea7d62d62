import { once } from 'node:events';
import { createServer, type AddressInfo, type Server } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { PrivateRedis } from '../support/private-redis';
import { freePort, startApiProcess, type ApiProcess } from '../support/processes';
import { waitFor } from '../support/wait-for';

const WRITES = 5;

interface Readiness {
  status: string;
  degraded?: string[];
  info?: Record<string, { status: string }>;
  details?: Record<string, { status: string; impact?: string }>;
}

/**
 * The API with its Redis gone: writes commit (their jobs wait in the outbox), readiness stays 200
 * and says Redis is degraded, the rate limiter lets requests through instead of failing them, and
 * the gauge reports Redis down. When Redis is back, the relay delivers what waited and the limits
 * hold again. Uses a Redis of the test's own (the machine's shared one is never stopped).
 */
describe('API while Redis is unreachable', () => {
  let redis: PrivateRedis;
  let api: ApiProcess;
  let database: pg.Client;
  const team = teamFixture({ RATE_LIMIT_WRITES_PER_MINUTE: String(WRITES), OUTBOX_POLL_INTERVAL_MS: '100' });
  let n = 0;

  const store = (target: ApiProcess, key: string) =>
    client(target.url, key).post<{ id: number }>('/api/memories', {
      content: `Written while Redis comes and goes, number ${++n}`,
    });
  const readiness = async (target: ApiProcess) => {
    const res = await fetch(`${target.url}/health/ready`);
    return { status: res.status, body: (await res.json()) as Readiness };
  };
  const redisGauge = async (target: ApiProcess) =>
    /^memsvc_dependency_up\{dependency="redis"[^}]*\} (\d)$/m.exec(
      await (await fetch(`${target.url}/metrics`)).text(),
    )?.[1];
  /** The outbox rows of these memories' index jobs: dispatched to Redis yet? */
  const dispatched = async (ids: number[]) => {
    const { rows } = await database.query<{ dispatched: boolean }>(
      `SELECT dispatched_at IS NOT NULL AS dispatched FROM outbox
        WHERE job_name = 'memory.index' AND payload->>'memoryId' = ANY($1::text[])`,
      [ids.map(String)],
    );
    return rows.map((r) => r.dispatched);
  };

  beforeAll(async () => {
    redis = await PrivateRedis.create();
    await redis.start();
    api = await startApiProcess({ ...team.env, REDIS_URL: redis.url });
    database = new pg.Client({ connectionString: inject('databaseUrl') });
    await database.connect();
  });
  afterAll(async () => {
    await api?.stop();
    await redis?.stop();
    await database?.end();
  });

  it('keeps writing, stays ready with Redis degraded, and catches up when Redis is back', async () => {
    const before = await readiness(api);
    expect(before).toMatchObject({ status: 200, body: { status: 'ok', info: { redis: { status: 'up' } } } });
    expect(before.body.degraded).toBeUndefined();
    expect(await redisGauge(api)).toBe('1');

    await redis.stop();
    const down = await waitFor('readiness to report Redis degraded', async () => {
      const state = await readiness(api);
      return state.body.degraded ? state : undefined;
    });
    expect(down).toMatchObject({
      status: 200,
      body: { status: 'ok', degraded: ['redis'], details: { redis: { status: 'down' } } },
    });
    expect(down.body.details?.redis.impact).toMatch(/outbox/);
    await waitFor('the gauge to report Redis down', async () =>
      (await redisGauge(api)) === '0' ? true : undefined,
    );

    // More writes than the budget: the limiter cannot count, so it lets them through, promptly.
    const ids: number[] = [];
    for (let i = 0; i < WRITES + 3; i++) {
      const started = Date.now();
      const res = await store(api, team.keys.alice);
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      expect(Date.now() - started).toBeLessThan(2_000);
      ids.push(res.body.id);
    }
    expect(await dispatched(ids)).toEqual(ids.map(() => false));

    await redis.start();
    await waitFor('the relay to deliver the jobs that waited', async () =>
      (await dispatched(ids)).every(Boolean) ? true : undefined,
    );
    await waitFor('readiness to report Redis up', async () => {
      const state = await readiness(api);
      return state.body.info?.redis?.status === 'up' && !state.body.degraded ? true : undefined;
    });
    await waitFor('the gauge to report Redis up', async () =>
      (await redisGauge(api)) === '1' ? true : undefined,
    );

    // Counting again once the limiter has reconnected (a write it could not count reports the whole
    // budget remaining); the restarted Redis starts from zero, and the budget holds.
    const left = await waitFor(
      'the limiter to count again',
      async () => {
        const res = await store(api, team.keys.alice);
        const remaining = Number(res.headers.get('ratelimit-remaining'));
        return remaining < WRITES ? remaining : undefined;
      },
      10_000,
      200,
    );
    for (let i = 0; i < left; i++) expect((await store(api, team.keys.alice)).status).toBeLessThan(300);
    const refused = await store(api, team.keys.alice);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it.each([
    ['nobody listens on', async () => `redis://127.0.0.1:${await freePort()}`],
    ['accepts connections but never answers at', async () => `redis://127.0.0.1:${await silentServer()}`],
  ])('starts, answers ready and takes writes promptly with a Redis that %s its URL', async (_, url) => {
    const fresh = await startApiProcess({ ...team.env, REDIS_URL: await url() });
    try {
      const state = await readiness(fresh);
      expect(state).toMatchObject({ status: 200, body: { degraded: ['redis'] } });
      for (let i = 0; i < WRITES + 1; i++) {
        const started = Date.now();
        expect((await store(fresh, team.keys.bob)).status).toBeLessThan(300);
        expect(Date.now() - started).toBeLessThan(2_000);
      }
      expect(await redisGauge(fresh)).toBe('0');
    } finally {
      await fresh.stop();
    }
  });
});

const silent: Server[] = [];
afterAll(() => silent.forEach((server) => server.close()));

/** A TCP server that accepts connections and never answers: a Redis that hangs. Returns its port. */
async function silentServer(): Promise<number> {
  const server = createServer(() => undefined);
  silent.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}
