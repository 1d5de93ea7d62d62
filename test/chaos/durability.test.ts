import { once } from 'node:events';
import { Redis } from 'ioredis';
import { Client as PgClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexInputHash } from '@app/jobs';
import { ChaosTally, PrivatePostgres, WriteLedger } from '@app/testing';
import { teamFixture, type TeamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { PrivateRedis } from '../support/private-redis';
import {
  startApiProcess,
  startWorkerProcess,
  waitForHttp,
  type ApiProcess,
  type WorkerProcess,
} from '../support/processes';
import { waitFor } from '../support/wait-for';
import { DurabilityLoad, type LoadTarget, type OutageWindow } from './durability-load';

/** CHAOS_SCALE=n runs the four faults n times over (and the load that long). */
const SCALE = Math.max(1, Math.round(Number(process.env.CHAOS_SCALE ?? 1)));
/** Concurrent writers (alice and bob in turn) and each one's pause between two requests. */
const WRITERS = 4;
const WRITER_PAUSE_MS = 60;
/** Load between two faults, and before the first. */
const PHASE_MS = 2_000;
/** A write left without an answer this long is unknown (the server's statement timeout is 15 s). */
const REQUEST_TIMEOUT_MS = 30_000;
/** After Postgres is back and every process is ready, 503s are still accepted this long. */
const OUTAGE_GRACE_MS = 1_000;
/** How long the index may take to catch up after the load (a killed worker's lock lasts 30 s). */
const SETTLE_TIMEOUT_MS = 80_000;

/** Reads of every acknowledged memory through the API at the end, this many at a time. */
const READ_BACK_CONCURRENCY = 8;

const INDEX_QUEUES = ['memory.index-batch', 'memory.index'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Api = ApiProcess & LoadTarget;

interface MemoryRow {
  id: string;
  content: string;
  expanded_keywords: string;
  tags: string[];
  deleted: boolean;
  status: string | null;
  indexed_hash: string | null;
  times_indexed: number | null;
  embedded_hashes: (string | null)[];
  creates: number;
  updates: number;
  idempotency_keys: number;
}

describe('Durability: acknowledged writes survive killed processes, a wiped queue and a Postgres restart', () => {
  const tally = new ChaosTally('Durability');
  const ledger = new WriteLedger();
  const outages: OutageWindow[] = [];
  /** Index batches a killed worker held: BullMQ must run them again once their lock expires. */
  const killedBatches = new Set<string>();
  let postgres: PrivatePostgres;
  let redis: PrivateRedis;
  let team: TeamFixture;
  let apis: Api[] = [];
  let worker: WorkerProcess;

  /** One statement on a fresh superuser connection (it must work across a Postgres restart). */
  const sql = async <R extends object>(text: string, params: unknown[] = []): Promise<R[]> => {
    const pg = new PgClient({ connectionString: team.env.DATABASE_URL });
    await pg.connect();
    try {
      return (await pg.query<R>(text, params)).rows;
    } finally {
      await pg.end();
    }
  };
  const withRedis = async <T>(use: (r: Redis) => Promise<T>): Promise<T> => {
    const r = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      return await use(r);
    } finally {
      r.disconnect();
    }
  };
  const queueKey = (queue: string, suffix: string) => `${team.env.QUEUE_PREFIX}:${queue}:${suffix}`;
  const startApi = async (): Promise<Api> =>
    Object.assign(await startApiProcess(team.env), { killed: false });
  const fault = (name: string) => {
    tally.add('faults injected');
    tally.add(name);
  };

  beforeAll(async () => {
    postgres = await PrivatePostgres.create('durability');
    redis = await PrivateRedis.create();
    await redis.start();
    team = teamFixture({
      DATABASE_URL: await postgres.createMigratedDatabase('memsvc_durability'),
      REDIS_URL: redis.url,
      OUTBOX_POLL_INTERVAL_MS: '100',
      // The product's own answer to lost jobs, on a short clock so the suite sees it work.
      INDEX_RECONCILE_AFTER_MS: '5000',
      INDEX_RECONCILE_EVERY_MS: '1000',
    });
    [apis, worker] = await Promise.all([Promise.all([startApi(), startApi()]), startWorkerProcess(team.env)]);
  });

  afterAll(async () => {
    const running = [...apis, worker].filter(
      (p) => p && p.child.exitCode === null && p.child.signalCode === null,
    );
    await Promise.all(running.map((p) => p.stop()));
    await redis?.stop();
    await postgres?.drop();
    tally.report();
  });

  /** Processes started in place of killed ones; the load goes on meanwhile. */
  let replacements: Promise<void>[] = [];

  /** SIGKILL one API process mid-load; its slot gets a fresh process (the load skips the dead one). */
  async function killApi(slot: number): Promise<void> {
    const victim = apis[slot];
    victim.killed = true;
    victim.child.kill('SIGKILL');
    await once(victim.child, 'exit');
    fault('API processes killed (SIGKILL)');
    replacements.push(startApi().then((api) => void (apis[slot] = api)));
  }

  /** Everything BullMQ held is gone, as after a flushed or failed-over Redis without persistence. */
  async function wipeQueue(): Promise<void> {
    const keys = await withRedis(async (r) => {
      const n = await r.dbsize();
      await r.flushall();
      return n;
    });
    tally.add('Redis keys wiped', keys);
    killedBatches.clear();
    fault('queue wiped (FLUSHALL)');
  }

  /** Waits until the worker holds an index batch, SIGKILLs it there, and starts another. */
  async function killWorkerMidBatch(): Promise<void> {
    const active = await waitFor(
      'an index batch in progress',
      () =>
        withRedis(async (r) =>
          ((await r.lrange(queueKey('memory.index-batch', 'active'), 0, -1)) || []).filter(Boolean),
        ).then((ids) => (ids.length > 0 ? ids : undefined)),
      30_000,
      5,
    );
    worker.child.kill('SIGKILL');
    await once(worker.child, 'exit');
    fault('workers killed mid-batch (SIGKILL)');
    for (const id of active) {
      killedBatches.add(id);
      const data = await withRedis((r) => r.hget(queueKey('memory.index-batch', id), 'data'));
      const memories = data ? (JSON.parse(data) as { memories: unknown[] }).memories.length : 0;
      tally.add('memories in killed batches', memories);
    }
    replacements.push(startWorkerProcess(team.env).then((w) => void (worker = w)));
  }

  /** `pg_ctlcluster … restart` (fast: open transactions abort); the outage lasts until all are ready again. */
  async function restartPostgres(): Promise<void> {
    await Promise.all(replacements);
    replacements = [];
    const window: OutageWindow = { start: Date.now() };
    outages.push(window);
    await postgres.restart();
    fault('Postgres restarts (pg_ctlcluster restart)');
    await Promise.all([
      ...apis.map((api) => waitForHttp(`${api.url}/health/ready`, 30_000, api)),
      waitForHttp(`${worker.healthUrl}/health/ready`, 30_000, worker),
    ]);
    await sleep(OUTAGE_GRACE_MS);
    window.end = Date.now();
  }

  /** Every live memory of the tenant indexed at its current text, nothing queued, no outbox row left. */
  async function settled(): Promise<boolean> {
    const [row] = await sql<{ unsettled: number; undispatched: number }>(
      `SELECT (SELECT count(*)::int FROM memories m LEFT JOIN memory_index_state s ON s.memory_id = m.id
                WHERE m.tenant_id = t.id AND m.deleted_at IS NULL
                  AND (s.status IS DISTINCT FROM 'indexed' OR s.indexed_hash IS DISTINCT FROM s.wanted_hash)) AS unsettled,
              (SELECT count(*)::int FROM outbox WHERE dispatched_at IS NULL) AS undispatched
         FROM tenants t WHERE t.slug = $1`,
      [team.tenant],
    );
    const queued = await withRedis(async (r) => {
      let n = 0;
      for (const q of INDEX_QUEUES)
        n += (await r.llen(queueKey(q, 'wait'))) + (await r.llen(queueKey(q, 'active')));
      for (const id of killedBatches) {
        if (!(await r.hget(queueKey('memory.index-batch', id), 'finishedOn'))) n++;
      }
      return n;
    });
    return row.unsettled === 0 && row.undispatched === 0 && queued === 0;
  }

  async function memoryRows(): Promise<MemoryRow[]> {
    return sql<MemoryRow>(
      `SELECT m.id::text AS id, m.content, m.expanded_keywords, m.tags, m.deleted_at IS NOT NULL AS deleted,
              s.status, encode(s.indexed_hash, 'hex') AS indexed_hash, s.times_indexed,
              ARRAY(SELECT encode(e.input_hash, 'hex') FROM embedding_models em
                      LEFT JOIN memory_embeddings e ON e.memory_id = m.id AND e.model_id = em.id
                     WHERE em.status IN ('active', 'filling') ORDER BY em.id) AS embedded_hashes,
              (SELECT count(*)::int FROM audit_log a WHERE a.tenant_id = m.tenant_id AND a.target_type = 'memory'
                  AND a.target_id = m.id::text AND a.action = 'memory.create') AS creates,
              (SELECT count(*)::int FROM audit_log a WHERE a.tenant_id = m.tenant_id AND a.target_type = 'memory'
                  AND a.target_id = m.id::text AND a.action = 'memory.update') AS updates,
              (SELECT count(*)::int FROM idempotency_keys k WHERE k.tenant_id = m.tenant_id
                  AND k.response->>'id' = m.id::text) AS idempotency_keys
         FROM memories m JOIN tenants t ON t.id = m.tenant_id
         LEFT JOIN memory_index_state s ON s.memory_id = m.id
        WHERE t.slug = $1`,
      [team.tenant],
    );
  }

  it('keeps every acknowledged write exactly once, embeds every memory, and does no job twice', async () => {
    const load = new DurabilityLoad({
      targets: () => apis,
      users: [
        { name: 'alice', key: team.keys.alice },
        { name: 'bob', key: team.keys.bob },
      ],
      ledger,
      tally,
      outages,
      writers: WRITERS,
      pauseMs: WRITER_PAUSE_MS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    });
    load.start();
    for (let round = 0; round < SCALE; round++) {
      await sleep(PHASE_MS);
      await wipeQueue();
      await sleep(PHASE_MS);
      await killWorkerMidBatch();
      await sleep(PHASE_MS);
      await killApi(round % 2);
      await sleep(PHASE_MS);
      await restartPostgres();
    }
    await sleep(PHASE_MS);
    await load.stop();

    // Nothing but the test's own SIGKILLs stopped a process (a lost database connection must not).
    for (const p of [...apis, worker]) {
      tally.check('every process the test did not kill is still running', p.child.exitCode === null, () =>
        p.output(),
      );
    }
    await waitFor(
      'the index to catch up (reconciliation, killed batches run again)',
      async () => ((await settled()) ? true : undefined),
      SETTLE_TIMEOUT_MS,
      250,
    );
    tally.add('killed batches finished afterwards', killedBatches.size);
    const rows = await memoryRows();
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    for (const entry of ledger.acknowledged) {
      const row = byId.get(entry.id);
      const verdict = ledger.judge(entry.id, row);
      if (
        !tally.check(
          'an acknowledged write is there with its last acknowledged content',
          verdict.ok,
          () => verdict.detail,
        )
      ) {
        tally.add('lost');
      }
      if (!row) continue;
      tally.check(
        'a memory is recorded created once',
        row.creates === 1,
        () => `memory ${row.id}: ${row.creates} create audit rows`,
      );
      tally.check(
        'each update that was committed is recorded once',
        row.updates >= entry.updatesAcknowledged && row.updates <= entry.updatesSent,
        () =>
          `memory ${row.id}: ${row.updates} update audit rows for ${entry.updatesAcknowledged}..${entry.updatesSent} updates`,
      );
      tally.check(
        'a memory is indexed no more often than its text changed',
        (row.times_indexed ?? 0) <= entry.versionsSent,
        () => `memory ${row.id} indexed ${row.times_indexed} times for ${entry.versionsSent} versions`,
      );
      tally.add('content versions sent', entry.versionsSent);
    }
    const idempotent = rows.filter((r) => r.tags.includes('idempotent'));
    for (const row of idempotent) {
      tally.check(
        'an idempotent store has one row and one key',
        row.idempotency_keys === 1,
        () => `memory ${row.id}: ${row.idempotency_keys} keys`,
      );
    }
    const byContent = new Map<string, number>();
    for (const row of rows) byContent.set(row.content, (byContent.get(row.content) ?? 0) + 1);
    for (const [content, count] of byContent) {
      if (!tally.check('no write is stored twice', count === 1, () => `${count} rows hold "${content}"`))
        tally.add('duplicated rows', count - 1);
    }
    const acknowledgedIds = new Set(ledger.acknowledged.map((e) => e.id));
    for (const row of rows) {
      tally.check(
        'every row was written by the load',
        ledger.wasSent(row.content),
        () => `memory ${row.id}: "${row.content}"`,
      );
      if (!acknowledgedIds.has(Number(row.id))) {
        tally.add('unanswered stores found committed');
        tally.check(
          'an unanswered store is indexed at most once',
          (row.times_indexed ?? 0) <= 1,
          () => `memory ${row.id}: ${row.times_indexed}`,
        );
      }
      const hash = indexInputHash({
        content: row.content,
        expandedKeywords: row.expanded_keywords,
        tags: row.tags,
      });
      const embedded =
        row.status === 'indexed' &&
        row.indexed_hash === hash &&
        row.embedded_hashes.length > 0 &&
        row.embedded_hashes.every((h) => h === hash);
      tally.check(
        'every memory is embedded at its current text',
        embedded,
        () => `memory ${row.id}: ${JSON.stringify({ ...row, hash })}`,
      );
      if (embedded) tally.add('memories embedded');
      tally.add('index side effects (times indexed)', row.times_indexed ?? 0);
    }
    tally.add('memories in the database', rows.length);
    const unansweredUpdates = ledger.acknowledged.reduce(
      (n, e) => n + e.updatesSent - e.updatesAcknowledged,
      0,
    );
    tally.add('unanswered writes', ledger.unknown.length + unansweredUpdates);

    // And as the owner reads it through the API (both processes), a few requests at a time.
    const keyOf: Record<string, string> = { alice: team.keys.alice, bob: team.keys.bob };
    const entries = [...ledger.acknowledged];
    for (let i = 0; i < entries.length; i += READ_BACK_CONCURRENCY) {
      await Promise.all(
        entries.slice(i, i + READ_BACK_CONCURRENCY).map(async (entry, n) => {
          const api = client(apis[n % apis.length].url, keyOf[entry.owner]);
          const res = await api.get<{ content?: string }>(`/api/memories/${entry.id}`);
          tally.status(res.status, 'GET /api/memories/:id');
          tally.check(
            'an acknowledged memory reads back through the API as stored',
            res.status === 200 && res.body.content === byId.get(entry.id)?.content,
            () => `memory ${entry.id}: ${res.status} ${JSON.stringify(res.body)}`,
          );
        }),
      );
    }

    expect(tally.get('faults injected')).toBe(4 * SCALE);
    expect(tally.get('memories acknowledged')).toBeGreaterThan(0);
    expect(tally.get('lost')).toBe(0);
    expect(tally.get('memories embedded')).toBe(rows.length);
    tally.assertClean();
  });
});
