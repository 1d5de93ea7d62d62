import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startStreamingReplica, type StreamingReplica } from '@app/testing';
import { teamFixture } from '../support/e2e-env';
import { client, type JsonResponse } from '../support/http-client';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { readsServed } from '../support/replica-metrics';
import { waitFor } from '../support/wait-for';

interface Stored {
  id: number;
}
interface Listed {
  memories: Array<{ id: number }>;
}
interface Readiness {
  details: { database_replicas?: { status: string; replicas: Array<{ name: string; inRotation: boolean }> } };
  degraded?: string[];
}

/**
 * Two API processes over the test Postgres and a real streaming replica of it (pg_basebackup, hot
 * standby): reads go to the replica, every user reads their own writes at once through either
 * process (the replica's replay is paused to make it lag), a teammate sees them once the replica
 * replays them, and stopping the replica in the middle of a load fails no request.
 */
describe('read replicas: a streaming standby serves reads, read-your-writes, failover to the primary', () => {
  const adminUrl = inject('adminDatabaseUrl');
  const databaseUrl = inject('databaseUrl');
  let replica: StreamingReplica;
  let apis: ApiProcess[] = [];
  const team = teamFixture({ DEFAULT_VISIBILITY: 'team' });
  const as = (i: number, who: 'alice' | 'bob') => client(apis[i].url, team.keys[who]);

  const onReplica = async <T>(sql: string, admin = false): Promise<T[]> => {
    const db = new Client({ connectionString: replica.urlFor(admin ? adminUrl : databaseUrl) });
    await db.connect();
    try {
      return (await db.query(sql)).rows as T[];
    } finally {
      await db.end();
    }
  };
  const readiness = async (i: number) =>
    (await client(apis[i].url).get<Readiness>('/health/ready')).body.details.database_replicas;
  const inRotation = async () => {
    for (let i = 0; i < apis.length; i++) expect((await readiness(i))?.status).toBe('up');
  };
  /** Retries an assertion until it holds. */
  const eventually = (what: string, check: () => Promise<void>, timeoutMs: number) =>
    waitFor(
      what,
      async () => {
        try {
          await check();
          return true;
        } catch {
          return undefined;
        }
      },
      timeoutMs,
      100,
    );
  const store = async (i: number, content: string) => {
    const res = await as(i, 'alice').post<Stored>('/api/memories', { content });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res;
  };

  beforeAll(async () => {
    replica = await startStreamingReplica({ primaryUrl: adminUrl });
    await replica.caughtUp();
    const env = {
      ...team.env,
      DATABASE_REPLICA_URLS: replica.urlFor(databaseUrl),
      REPLICA_MAX_LAG_MS: '5000',
      REPLICA_MAX_WAIT_MS: '200',
    };
    apis = await Promise.all([startApiProcess(env), startApiProcess(env)]);
    await eventually('replicas in rotation', inRotation, 15_000);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(apis.map((api) => api.stop()));
    await replica?.destroy();
  });

  it('serves list, get and recall from the replica (its own sessions and transactions)', async () => {
    const { body } = await store(0, 'replica routing probe: the harbour crane schedule');
    const committed = async () =>
      Number(
        (
          await onReplica<{ n: string }>(
            `SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()`,
          )
        )[0].n,
      );
    const transactionsBefore = await committed();
    const before = await readsServed(apis[1].url);
    for (let i = 0; i < 10; i++) {
      expect((await as(1, 'bob').get<Listed>('/api/memories?limit=5')).status).toBe(200);
      expect((await as(1, 'bob').get(`/api/memories/${body.id}`)).status).toBe(200);
      expect((await as(1, 'bob').post('/api/memories/recall', { context: 'harbour crane' })).status).toBe(
        200,
      );
    }
    const after = await readsServed(apis[1].url);
    expect(after.replica - before.replica).toBeGreaterThanOrEqual(30);
    const sessions = await onReplica<{ application_name: string }>(
      `SELECT application_name FROM pg_stat_activity WHERE datname = current_database()`,
    );
    expect(sessions.map((s) => s.application_name)).toContain('memory-api-replica-1');
    // The replica's own statistics count those transactions (flushed within a second or so).
    await eventually(
      'the replica counting the reads',
      async () => expect((await committed()) - transactionsBefore).toBeGreaterThanOrEqual(30),
      10_000,
    );
  });

  it('a user reads their own write at once through either process while the replica lags; a teammate once it replays', async () => {
    // Replay stops: the replica stays in rotation (its lag grows from now) but holds nothing new.
    await onReplica(`SELECT pg_wal_replay_pause()`, true);
    try {
      const before = await readsServed(apis[1].url);
      const stored = await store(0, 'written while the replica lags: the lighthouse lamp rota');
      const id = stored.body.id;
      const token = stored.headers.get('x-memory-consistency');
      expect(token).toMatch(/^lsn:[0-9A-F]+\/[0-9A-F]+$/);

      // The author, through the other process and with no token: Redis holds their last write.
      expect((await as(1, 'alice').get(`/api/memories/${id}`)).status).toBe(200);
      const listed = await as(1, 'alice').get<Listed>('/api/memories?limit=5');
      expect(listed.body.memories.map((m) => m.id)).toContain(id);
      const recalled = await as(1, 'alice').post<Listed>('/api/memories/recall', {
        context: 'lighthouse lamp rota',
      });
      expect(recalled.body.memories.map((m) => m.id)).toContain(id);
      // Those reads went to the primary because the replica was behind them.
      expect((await readsServed(apis[1].url)).primary.behind ?? 0).toBeGreaterThan(
        before.primary.behind ?? 0,
      );

      // A teammate with no token reads the replica, which does not hold it yet …
      expect((await as(1, 'bob').get(`/api/memories/${id}`)).status).toBe(404);
      // … and with the author's token (a CI step handing it on) reads it at once.
      const handed = await as(1, 'bob').get(`/api/memories/${id}`, {
        'x-memory-consistency': token as string,
      });
      expect(handed.status).toBe(200);
    } finally {
      await onReplica(`SELECT pg_wal_replay_resume()`, true);
    }
    // Once replayed, the teammate sees it from the replica too.
    const latest = (await as(0, 'alice').get<Listed>('/api/memories?limit=1')).body.memories[0].id;
    await eventually(
      'the teammate reading it',
      async () => expect((await as(1, 'bob').get(`/api/memories/${latest}`)).status).toBe(200),
      5_000,
    );
  });

  it("recall through another process finds the user's write at once, even right after that process refreshed its index", async () => {
    for (let round = 0; round < 5; round++) {
      // Bob's recall brings process 1's index up to date: for 250 ms it may answer without a refresh.
      expect((await as(1, 'bob').post('/api/memories/recall', { context: 'anything at all' })).status).toBe(
        200,
      );
      const { body } = await store(0, `fresh-index probe ${round}: the quayside ferry timetable`);
      const found = await as(1, 'alice').post<Listed>('/api/memories/recall', {
        context: `fresh-index probe ${round} quayside ferry`,
      });
      expect(found.body.memories.map((m) => m.id)).toContain(body.id);
    }
  });

  it('refuses a token that is not one of ours', async () => {
    const res = await as(0, 'bob').get('/api/memories?limit=1', { 'x-memory-consistency': 'yesterday' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_consistency_token' });
  });

  it('stopping the replica in the middle of a load fails no request; it rejoins once back', async () => {
    await eventually('replicas in rotation', inRotation, 15_000);
    const failures: string[] = [];
    let requests = 0;
    const check = (what: string, res: JsonResponse<unknown>) => {
      requests += 1;
      if (res.status !== 200) failures.push(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
    };
    const until = Date.now() + 6_000;
    const load = async (worker: number) => {
      for (let n = 0; Date.now() < until; n++) {
        const i = (worker + n) % 2;
        const who = worker % 2 === 0 ? 'alice' : 'bob';
        const stored = await as(i, who).post<Stored>('/api/memories', {
          content: `load ${worker}-${n} tide table`,
        });
        check('store', stored);
        check('get', await as(1 - i, who).get(`/api/memories/${stored.body.id}`));
        check('list', await as(i, who).get('/api/memories?limit=10'));
        check('recall', await as(1 - i, who).post('/api/memories/recall', { context: 'tide table' }));
      }
    };
    const running = Promise.all([0, 1, 2, 3].map(load));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await replica.stop();
    await running;
    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(40);
    // Out of rotation: ready, with the replicas listed as degraded.
    await eventually(
      'the replica out of rotation',
      async () => expect((await readiness(0))?.status).toBe('down'),
      5_000,
    );
    const ready = await client(apis[0].url).get<Readiness>('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.degraded).toContain('database_replicas');

    await replica.start();
    await eventually('replicas back in rotation', inRotation, 20_000);
    const before = await readsServed(apis[0].url);
    expect((await as(0, 'bob').get('/api/memories?limit=1')).status).toBe(200);
    expect((await readsServed(apis[0].url)).replica).toBeGreaterThan(before.replica);
  });
});
