import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ChaosTally, FakeVault, FaultProxy } from '@app/testing';
import { teamFixture } from '../support/e2e-env';
import {
  startApiProcess,
  startWorkerProcess,
  type ApiProcess,
  type WorkerProcess,
} from '../support/processes';
import { withDb } from '../support/superuser-db';
import { ghToken, wholeDatabaseText } from '../support/secret-scan';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import {
  callApi,
  checkStoredOnce,
  expectOk,
  expectUnavailable,
  HANG_MS,
  type Answer,
} from '../support/tallied-calls';
import { waitFor } from '../support/wait-for';

/**
 * A built API and worker whose Postgres, Redis and Vault links run through fault proxies: each
 * dependency in turn is blackholed, reset, slowed or sealed while requests keep coming, and every
 * answer is held to what docs/operations.md promises (503 with a `{detail, code}` body within the
 * configured timeout, writes through the outbox while Redis is away, only secret writes refused
 * while Vault is), then the link heals and the same process serves again.
 */

const SCALE = Number(process.env.CHAOS_SCALE ?? '1') || 1;
/** Requests sent while each fault lasts. */
const CALLS_PER_FAULT = Math.max(3, Math.round(8 * SCALE));
const STATEMENT_TIMEOUT_MS = 2_000;
const VAULT_TIMEOUT_MS = 1_000;
/**
 * The latest a 503 may come while Postgres is unreachable: the statement timeout, plus the second
 * the service waits past it for an answer (docs/api.md, `database_unavailable`), plus room for a
 * loaded machine. A correctness bound (no hang), not a performance figure.
 */
const POSTGRES_BOUND_MS = STATEMENT_TIMEOUT_MS + 1_000 + 3_000;
/** The Vault client's timeout and the same room. */
const VAULT_BOUND_MS = VAULT_TIMEOUT_MS + 3_000;
/**
 * While Redis accepts connections but never answers, a request waits at most the rate limiter's
 * command timeout (0.5 s, docs/api.md) before going through uncounted; plus the same room.
 */
const REDIS_BOUND_MS = 500 + 3_000;
describe('Dependency faults', () => {
  const tally = new ChaosTally('Dependency faults');
  const vault = new FakeVault();
  const secretsSent: string[] = [];
  let pg: FaultProxy;
  let redis: FaultProxy;
  let vaultLink: FaultProxy;
  let api: ApiProcess;
  let worker: WorkerProcess;
  let team: ReturnType<typeof teamFixture>;

  beforeAll(async () => {
    const vaultAddress = await vault.start();
    [pg, redis, vaultLink] = await Promise.all([
      FaultProxy.start({ target: new URL(inject('databaseUrl')).host }),
      FaultProxy.start({ target: new URL(inject('redisUrl')).host }),
      FaultProxy.start({ target: new URL(vaultAddress).host }),
    ]);
    team = teamFixture({
      VAULT_ADDR: vaultAddress,
      VAULT_TOKEN: vault.rootToken,
      VAULT_TIMEOUT_MS: String(VAULT_TIMEOUT_MS),
      DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      OUTBOX_POLL_INTERVAL_MS: '100',
      // The limiter on (Redis-backed), so a blackholed Redis is felt by every request.
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    // Redis is reached through its proxy by both processes (the link to Redis is what breaks);
    // Postgres and Vault by the API only, whose answers are checked.
    const redisUrl = redis.rewrite(team.env.REDIS_URL);
    [api, worker] = await Promise.all([
      startApiProcess({
        ...team.env,
        DATABASE_URL: pg.rewrite(team.env.DATABASE_URL),
        REDIS_URL: redisUrl,
        VAULT_ADDR: `http://${vaultLink.address}`,
      }),
      startWorkerProcess({ ...team.env, REDIS_URL: redisUrl }),
    ]);
  });

  afterAll(async () => {
    for (const proxy of [pg, redis, vaultLink]) proxy?.heal();
    await Promise.all([api?.stop(), worker?.stop()]);
    await Promise.all([pg?.close(), redis?.close(), vaultLink?.close()]);
    await vault.stop();
    tally.add(
      'faults injected',
      [pg, redis, vaultLink].reduce((n, p) => n + (p?.stats.faultsInjected ?? 0), 0),
    );
    tally.report();
  });

  const call = (method: string, path: string, body?: unknown) =>
    callApi(api.url, team.keys.alice, { method, path, body });
  const store = (content: string, extra: Record<string, unknown> = {}) =>
    call('POST', '/api/memories', { content, ...extra });
  const ok = (what: string, res: Answer) => expectOk(tally, what, res);
  const unavailable = (what: string, res: Answer, code: string, boundMs: number) =>
    expectUnavailable(tally, what, res, { code, boundMs });
  const checkWrites = (acknowledged: string[], refused: string[]) =>
    checkStoredOnce(tally, acknowledged, refused);

  const readiness = async () => {
    const started = Date.now();
    const res = await fetch(`${api.url}/health/ready`, { signal: AbortSignal.timeout(HANG_MS) });
    return {
      status: res.status,
      body: (await res.json()) as { status: string; degraded?: string[]; code?: string },
      ms: Date.now() - started,
    };
  };

  it('Postgres blackholed: 503 database_unavailable within the timeout, not ready, serving again once healed', async () => {
    const before = ok('store before the fault', await store(`before the blackhole ${randomUUID()}`));
    const mcp = await connectMcp(`${api.url}/mcp`, bearer(team.keys.alice));
    pg.set({ mode: 'blackhole' });

    // An agent's tool call gets a tool error it can act on, in the same time.
    const started = Date.now();
    const tool = await callTool(mcp, 'memory_recall', { context: 'blackhole' }).catch((error: unknown) => ({
      isError: true,
      text: String(error),
    }));
    const toolMs = Date.now() - started;
    tally.add('calls');
    tally.add('expected tool errors');
    tally.check(
      'memory_recall while Postgres is blackholed is a tool error naming database_unavailable',
      tool.isError === true && tool.text.includes('database_unavailable'),
      () => tool.text,
    );
    tally.check(
      `memory_recall while Postgres is blackholed answered within ${POSTGRES_BOUND_MS} ms`,
      toolMs <= POSTGRES_BOUND_MS,
      () => `${toolMs} ms`,
    );
    await mcp.close();

    const refused: string[] = [];
    const answers = await Promise.all(
      Array.from({ length: CALLS_PER_FAULT }, async (_, i) => {
        const content = `during the blackhole ${i} ${randomUUID()}`;
        const kinds = [
          () => (refused.push(content), store(content)),
          () => call('GET', '/api/memories?limit=5'),
          () => call('POST', '/api/memories/recall', { context: 'blackhole' }),
          () => call('GET', `/api/memories/${before.body.id}`),
        ];
        return [`request ${i} while Postgres is blackholed`, await kinds[i % kinds.length]!()] as const;
      }),
    );
    for (const [what, res] of answers) unavailable(what, res, 'database_unavailable', POSTGRES_BOUND_MS);
    expect(answers.map(([, res]) => res.status)).toEqual(answers.map(() => 503));

    const notReady = await readiness();
    tally.check('readiness is 503 while Postgres is unreachable', notReady.status === 503, () =>
      JSON.stringify(notReady),
    );
    expect(notReady.status).toBe(503);
    expect(notReady.ms).toBeLessThanOrEqual(POSTGRES_BOUND_MS);
    const live = await fetch(`${api.url}/health/live`);
    tally.check('liveness stays 200 (no restart needed)', live.status === 200, () => `${live.status}`);

    pg.heal();
    await waitFor(
      'readiness once Postgres is back',
      async () => ((await readiness()).status === 200 ? true : undefined),
      30_000,
      200,
    );
    const acknowledged = [`after the blackhole ${randomUUID()}`];
    ok('store after healing', await store(acknowledged[0]!));
    ok('list after healing', await call('GET', '/api/memories?limit=5'));
    ok('get after healing', await call('GET', `/api/memories/${before.body.id}`));
    await checkWrites(acknowledged, refused);
    expect(tally.failed).toBe(0);
  });

  it('Postgres connections reset after a few bytes, then slowed: 503 while reset, every write acknowledged when slow', async () => {
    // The pooled connections are reset mid-statement; the new ones during their handshake.
    pg.set({ mode: 'reset', afterBytes: 64 });
    const refused: string[] = [];
    for (let i = 0; i < CALLS_PER_FAULT; i++) {
      const content = `during resets ${i} ${randomUUID()}`;
      refused.push(content);
      unavailable(
        `store ${i} while Postgres connections reset`,
        await store(content),
        'database_unavailable',
        POSTGRES_BOUND_MS,
      );
    }
    expect(pg.stats.connectionsReset).toBeGreaterThan(0);

    pg.set({ mode: 'latency', latencyMs: 40, jitterMs: 30 });
    const acknowledged: string[] = [];
    for (let i = 0; i < CALLS_PER_FAULT; i++) {
      const content = `over a slow link ${i} ${randomUUID()}`;
      if (ok(`store ${i} over a slow Postgres link`, await store(content)).status === 200)
        acknowledged.push(content);
    }
    pg.heal();
    await checkWrites(acknowledged, refused);
    expect(tally.failed).toBe(0);
  });

  /** memory_index_state of these memories: the worker's embedding job has run once it says indexed. */
  const indexed = (ids: number[]) =>
    withDb(async (db) => {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM memory_index_state WHERE memory_id = ANY($1::bigint[]) AND status = 'indexed'`,
        [ids],
      );
      return rows[0]!.n;
    });

  it('Redis blackholed: writes commit (outbox), readiness stays 200 with Redis degraded, the jobs catch up once healed', async () => {
    redis.set({ mode: 'blackhole' });
    const acknowledged: string[] = [];
    const ids: number[] = [];
    for (let i = 0; i < CALLS_PER_FAULT; i++) {
      const content = `while Redis is blackholed ${i} ${randomUUID()}`;
      const res = ok(`store ${i} while Redis is blackholed`, await store(content));
      tally.check(
        `store ${i} while Redis is blackholed answered within ${REDIS_BOUND_MS} ms`,
        res.ms <= REDIS_BOUND_MS,
        () => `${res.ms} ms`,
      );
      if (res.status === 200 && typeof res.body.id === 'number') {
        acknowledged.push(content);
        ids.push(res.body.id);
      }
    }
    ok('list while Redis is blackholed', await call('GET', '/api/memories?limit=5'));
    ok(
      'recall while Redis is blackholed',
      await call('POST', '/api/memories/recall', { context: 'blackholed' }),
    );
    const degraded = await waitFor(
      'readiness to report Redis degraded',
      async () => {
        const state = await readiness();
        return state.body.degraded?.includes('redis') || state.status !== 200 ? state : undefined;
      },
      30_000,
      200,
    );
    tally.check('readiness stays 200 with Redis degraded', degraded.status === 200, () =>
      JSON.stringify(degraded),
    );
    expect(degraded).toMatchObject({ status: 200, body: { degraded: ['redis'] } });
    expect(await indexed(ids)).toBeLessThan(ids.length);

    redis.heal();
    const caughtUp = await waitFor(
      'the worker to index what was written while Redis was away',
      async () => ((await indexed(ids)) === ids.length ? true : undefined),
      60_000,
      250,
    ).catch(() => false);
    tally.check(
      'every memory written while Redis was away is indexed once it is back',
      caughtUp,
      () => 'not all indexed within 60 s',
    );
    expect(caughtUp).toBe(true);
    await checkWrites(acknowledged, []);
    expect(tally.failed).toBe(0);
  });

  /** Secret writes refused with 503 while the rest keeps working; what was refused left no plaintext. */
  async function secretsRefused(what: string): Promise<void> {
    for (let i = 0; i < CALLS_PER_FAULT; i++) {
      const secret = ghToken();
      secretsSent.push(secret);
      const content = `deploy token for ${what} ${i} is ${secret}`;
      unavailable(
        `secret store ${i} while Vault is ${what}`,
        await store(content),
        'secret_store_unavailable',
        VAULT_BOUND_MS,
      );
    }
    const forced = ghToken();
    secretsSent.push(forced);
    unavailable(
      `force_sensitive store while Vault is ${what}`,
      await store(`plain words ${forced}`, { force_sensitive: true }),
      'secret_store_unavailable',
      VAULT_BOUND_MS,
    );
    const plain = `nothing secret while Vault is ${what} ${randomUUID()}`;
    ok(`plain store while Vault is ${what}`, await store(plain));
    ok(`recall while Vault is ${what}`, await call('POST', '/api/memories/recall', { context: 'Vault' }));
    ok(`list while Vault is ${what}`, await call('GET', '/api/memories?limit=5'));
    await checkWrites([plain], []);
  }

  async function secretStored(what: string): Promise<number | undefined> {
    const secret = ghToken();
    secretsSent.push(secret);
    const res = ok(
      `secret store once Vault is ${what}`,
      await store(`deploy token after ${what}: ${secret}`),
    );
    return res.body.id;
  }

  it('Vault slow (past its timeout) or sealed: secret writes 503, everything else fine, secrets again once healed; no plaintext in Postgres', async () => {
    const earlier = await secretStored('reachable');
    expect(earlier).toBeTypeOf('number');

    vaultLink.set({ mode: 'latency', latencyMs: VAULT_TIMEOUT_MS + 1_500, jitterMs: 200 });
    await secretsRefused('slow');
    vaultLink.heal();
    expect(await secretStored('fast again')).toBeTypeOf('number');

    vault.seal();
    tally.add('faults injected');
    await secretsRefused('sealed');
    const reveal = await call('POST', `/api/memories/${earlier}/secret`, {});
    unavailable('reveal while Vault is sealed', reveal, 'secret_store_unavailable', VAULT_BOUND_MS);
    vault.unseal();
    expect(await secretStored('unsealed')).toBeTypeOf('number');
    const revealed = ok(
      'reveal once Vault is unsealed',
      await call('POST', `/api/memories/${earlier}/secret`, {}),
    );
    expect(String(revealed.body.content)).toContain('deploy token after reachable');

    const everything = await wholeDatabaseText();
    for (const secret of secretsSent) {
      if (everything.includes(secret)) tally.add('leaks');
    }
    tally.check(
      'no secret sent during the run is in Postgres in plaintext',
      secretsSent.every((s) => !everything.includes(s)),
    );
    expect(tally.failed).toBe(0);
  });

  it('left nothing lost, leaked or answered 5xx beyond the expected 503s', () => {
    tally.assertClean();
  });
});
