import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '@app/config';
import { CreateMemoryUseCase, type NewMemory } from '@app/memories';
import { MEMBER_SCOPES, type Principal } from '@app/tenancy';
import { createTestTenant, openTestDatabase, type TestDatabase, newMemory } from '@app/testing';
import { startWorker, type StartedWorker } from '../src/main';
import { PrivateRedis } from '../../../test/support/private-redis';
import { waitFor } from '../../../test/support/wait-for';
import { memoryWriterFor } from '../../../test/support/memory-writes';
import { createScratchDatabase, type ScratchDatabase } from '../../../test/support/scratch-database';

const note = (content: string): NewMemory => newMemory(content);

describe('Redis outage', () => {
  let db: TestDatabase;
  let redis: PrivateRedis;
  let worker: StartedWorker | undefined;
  let create: CreateMemoryUseCase;
  let alice: Principal;

  const indexState = async (ids: number[]) => {
    const { rows } = await db.tx.asSystem((tx) =>
      tx.query<{ memory_id: string; status: string; times_indexed: number }>(
        `SELECT memory_id::text AS memory_id, status, times_indexed FROM memory_index_state
          WHERE memory_id = ANY($1::bigint[]) ORDER BY memory_id`,
        [ids],
      ),
    );
    return rows;
  };

  const outboxFor = async (ids: number[]) => {
    const { rows } = await db.tx.asSystem((tx) =>
      tx.query<{ dispatched: boolean; attempts: number; last_error: string | null }>(
        `SELECT dispatched_at IS NOT NULL AS dispatched, attempts, last_error FROM outbox
          WHERE tenant_id = $1 AND payload->>'memoryId' = ANY($2::text[]) ORDER BY id`,
        [alice.tenantId, ids.map(String)],
      ),
    );
    return rows;
  };

  const allIndexed = async (ids: number[]) => {
    const rows = await indexState(ids);
    return rows.length === ids.length && rows.every((r) => r.status === 'indexed') ? rows : undefined;
  };

  const ready = async (): Promise<number> => (await fetch(`${worker?.healthUrl}/health/ready`)).status;

  // A database of its own: the worker's relay claims every tenant's rows, and suites that run relays
  // of their own against the shared test database would take this suite's rows (and it theirs).
  let scratch: ScratchDatabase;
  beforeAll(async () => {
    scratch = await createScratchDatabase(inject('adminDatabaseUrl'), 'redis_outage');
    db = await openTestDatabase(scratch.url, 6);
    const writer = await memoryWriterFor(db.tx, {
      maxContentBytes: 4096,
      maxImportBatch: 10,
      maxListLimit: 100,
    });
    create = new CreateMemoryUseCase(writer);
    const tenant = await createTestTenant(db, 'outage');
    alice = {
      ...(await tenant.addUser('alice')),
      tenantSlug: tenant.slug,
      keyId: randomUUID(),
      scopes: MEMBER_SCOPES,
    };

    redis = await PrivateRedis.create();
    await redis.start();
    const config = loadConfig({
      DATABASE_URL: scratch.url,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: `outage-${randomUUID().slice(0, 8)}`,
      OUTBOX_POLL_INTERVAL_MS: '100',
      WORKER_HEALTH_PORT: '0',
      WORKER_HEALTH_HOST: '127.0.0.1',
      SHUTDOWN_GRACE_MS: '2000',
      RUN_MIGRATIONS: 'false',
      LOG_LEVEL: 'error',
    });
    worker = await startWorker(config);
  });

  afterAll(async () => {
    await worker?.stop();
    await redis?.stop();
    await db?.close();
    await scratch?.drop();
  });

  it('accepts writes while Redis is down and runs each of their jobs once Redis is back', async () => {
    // Healthy baseline: writes flow through the relay and the worker.
    const before: number[] = [];
    for (let i = 0; i < 3; i += 1)
      before.push((await create.execute(alice, note(`before outage ${i} ${randomUUID()}`))).id);
    await waitFor('baseline indexing', () => allIndexed(before));
    expect(await ready()).toBe(200);

    await redis.stop();
    await waitFor('readiness to report Redis down', async () => ((await ready()) === 503 ? true : undefined));

    // The write path never touches Redis: rows and their outbox rows commit.
    const during: number[] = [];
    for (let i = 0; i < 5; i += 1)
      during.push((await create.execute(alice, note(`during outage ${i} ${randomUUID()}`))).id);
    const stuck = await waitFor('failed relay attempts to be recorded', async () => {
      const rows = await outboxFor(during);
      return rows.length === 5 && rows.every((r) => r.attempts >= 1) ? rows : undefined;
    });
    expect(stuck.every((r) => !r.dispatched && r.last_error !== null)).toBe(true);
    // Stay down long enough for several reconnect attempts and relay backoff rounds.
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await outboxFor(during)).every((r) => !r.dispatched)).toBe(true);
    expect((await indexState(during)).every((r) => r.status === 'pending')).toBe(true);

    await redis.start();
    const indexed = await waitFor('indexing after Redis is back', () => allIndexed(during));
    expect(indexed.map((r) => r.times_indexed)).toEqual([1, 1, 1, 1, 1]);
    // The restarted Redis came back empty, so the worker also swept at once: a memory whose job
    // was relayed just before that sweep may have a second job on its way, which writes nothing.
    await waitFor('every job of theirs handed to the queue', async () =>
      (await outboxFor(during)).every((r) => r.dispatched) ? true : undefined,
    );
    await waitFor('readiness to recover', async () => ((await ready()) === 200 ? true : undefined));

    // Nothing ran twice, before or after the outage.
    expect((await indexState(before)).map((r) => r.times_indexed)).toEqual([1, 1, 1]);
  });
});
