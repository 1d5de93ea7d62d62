import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'bullmq';
import {
  INDEX_BATCHES_WAITING_BEFORE_HOLD,
  OutboxRelay,
  OutboxRepository,
  OutboxSignal,
  OutboxWriter,
  outboxJobId,
  type JobPayload,
  type JobQueue,
  type QueuedJob,
} from '@app/jobs';
import { BullMqJobQueue } from '@app/jobs/testing';
import { type TenantScope } from '@app/persistence';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';
import { createScratchDatabase, type ScratchDatabase } from '../../../test/support/scratch-database';

/** Wraps a real queue, records every add, and can simulate an outage. */
class RecordingQueue implements JobQueue {
  readonly driver = 'bullmq' as const;
  readonly added: QueuedJob[] = [];
  down = false;
  /** What `waiting` reports for every job name (a backlog the workers have not taken yet). */
  waitingJobs = 0;
  private readonly listeners: Array<() => void> = [];

  constructor(private readonly inner?: JobQueue) {}

  async add(jobs: readonly QueuedJob[]): Promise<void> {
    if (this.down) throw new Error('simulated outage: connection refused');
    await this.inner?.add(jobs);
    this.added.push(...jobs);
  }
  async waiting(): Promise<number> {
    return this.waitingJobs;
  }
  async ping(): Promise<void> {}
  onAvailable(listener: () => void): void {
    this.listeners.push(listener);
  }
  watchForLoss(): () => void {
    return () => undefined;
  }
  recover(): void {
    this.down = false;
    for (const l of this.listeners) l();
  }
  async close(): Promise<void> {}
  addsFor(tenantId: string): QueuedJob[] {
    return this.added.filter((j) => j.payload.tenantId === tenantId || memoriesOf(j, tenantId).length > 0);
  }
  /** The memory ids the adds carry for the tenant, one per queued index request. */
  memoriesFor(tenantId: string): string[] {
    return this.added.flatMap((j) => memoriesOf(j, tenantId));
  }
}

/** `memory.index` rows travel inside `memory.index-batch` jobs. */
function memoriesOf(job: QueuedJob, tenantId: string): string[] {
  if (job.name !== 'memory.index-batch') return [];
  const { memories } = job.payload as JobPayload<'memory.index-batch'>;
  return memories.filter((m) => m.tenantId === tenantId).map((m) => m.memoryId);
}

const FAKE_MEMORY_ID_BASE = 900_000_000_000;

interface OutboxState {
  id: string;
  dispatched: boolean;
  attempts: number;
  last_error: string | null;
  createdUs: string;
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The installation id these hand-wired relays and consumers act for. */
const INSTALLATION = '0123456789ab';

describe('outbox relay', () => {
  let db: TestDatabase;
  let scope: TenantScope;
  const writer = new OutboxWriter();
  const redisUrl = inject('redisUrl');

  const payload = (memoryId: number): JobPayload<'memory.index'> => ({
    tenantId: scope.tenantId,
    userId: scope.userId,
    // Far above any real memory id in the shared test database, so other suites never mistake these rows for theirs.
    memoryId: String(FAKE_MEMORY_ID_BASE + memoryId),
    contentHash: 'ab'.repeat(32),
  });

  /** Commits `count` outbox rows in one tenant transaction, as a write path would. */
  const commitJobs = async (count: number, from = 1): Promise<void> => {
    await db.tx.inTenant(scope, async (tx) => {
      for (let i = 0; i < count; i += 1) {
        await writer.enqueue(scope, tx, {
          name: 'memory.index',
          payload: payload(from + i),
          requestId: `req-${i}`,
        });
      }
    });
  };

  const rows = async (): Promise<OutboxState[]> => {
    const result = await db.tx.asSystem((tx) =>
      tx.query<OutboxState>(
        `SELECT id::text AS id, dispatched_at IS NOT NULL AS dispatched, attempts, last_error,
                (extract(epoch FROM created_at) * 1000000)::bigint::text AS "createdUs"
           FROM outbox WHERE tenant_id = $1 ORDER BY id`,
        [scope.tenantId],
      ),
    );
    return result.rows;
  };

  // A database of its own: a relay claims every tenant's rows, and other suites run relays of their
  // own against the shared test database.
  let scratch: ScratchDatabase;
  beforeAll(async () => {
    scratch = await createScratchDatabase(inject('adminDatabaseUrl'), 'outbox_relay');
    db = await openTestDatabase(scratch.url, 6);
  });
  afterAll(async () => {
    await db.close();
    await scratch.drop();
  });

  // Each test gets its own tenant, so its outbox rows are easy to tell apart.
  const freshTenant = async () => {
    const tenant = await createTestTenant(db, 'relay');
    scope = await tenant.addUser('writer');
  };

  it('hands committed rows to BullMQ under ids derived from the outbox id and marks them dispatched', async () => {
    await freshTenant();
    const prefix = `test-relay-${randomUUID().slice(0, 8)}`;
    const bull = new BullMqJobQueue({ url: redisUrl, prefix });
    const inspect = new Queue('memory.index-batch', { connection: { url: redisUrl }, prefix });
    try {
      await commitJobs(3);
      const relay = new OutboxRelay(db.tx, bull, {
        installationId: INSTALLATION,
        batchSize: 100,
        pollIntervalMs: 1_000,
      });
      await relay.drain();
      const committed = await rows();
      expect(committed).toHaveLength(3);
      for (const row of committed)
        expect(row).toMatchObject({ dispatched: true, attempts: 1, last_error: null });
      // One pass, one batch job carrying the three memories, named after its first and last row.
      const job = await inspect.getJob(`${outboxJobId(INSTALLATION, committed[0])}-${committed[2].id}`);
      expect(job?.name).toBe('memory.index-batch');
      expect(job?.data).toEqual({ memories: [1, 2, 3].map((i) => payload(i)) });
      expect(job?.opts.attempts).toBeGreaterThan(1);
      // A second pass finds nothing left to do.
      const again = await relay.drain();
      expect(again.failed).toBe(0);
      expect((await rows()).every((r) => r.attempts === 1)).toBe(true);
    } finally {
      await inspect.obliterate({ force: true });
      await inspect.close();
      await bull.close();
    }
  });

  it('never produces a job for a rolled-back write', async () => {
    await freshTenant();
    const queue = new RecordingQueue();
    await expect(
      db.tx.inTenant(scope, async (tx) => {
        await writer.enqueue(scope, tx, { name: 'memory.index', payload: payload(1) });
        throw new Error('the write failed after enqueueing');
      }),
    ).rejects.toThrow('the write failed');
    const relay = new OutboxRelay(db.tx, queue, {
      installationId: INSTALLATION,
      batchSize: 100,
      pollIntervalMs: 1_000,
    });
    await relay.drain();
    expect(await rows()).toHaveLength(0);
    expect(queue.addsFor(scope.tenantId)).toHaveLength(0);
  });

  it('lets two relays work side by side without ever queueing the same row twice', async () => {
    await freshTenant();
    const prefix = `test-relay-${randomUUID().slice(0, 8)}`;
    const bull = new BullMqJobQueue({ url: redisUrl, prefix });
    const inspect = new Queue('memory.index-batch', { connection: { url: redisUrl }, prefix });
    const second = await openTestDatabase(scratch.url, 4);
    try {
      await commitJobs(300);
      const queueA = new RecordingQueue(bull);
      const queueB = new RecordingQueue(bull);
      const relayA = new OutboxRelay(db.tx, queueA, {
        installationId: INSTALLATION,
        batchSize: 10,
        pollIntervalMs: 1_000,
      });
      const relayB = new OutboxRelay(second.tx, queueB, {
        installationId: INSTALLATION,
        batchSize: 10,
        pollIntervalMs: 1_000,
      });
      await Promise.all([relayA.drain(), relayB.drain(), relayA.drain(), relayB.drain()]);

      const memories = [...queueA.memoriesFor(scope.tenantId), ...queueB.memoriesFor(scope.tenantId)];
      expect(memories).toHaveLength(300);
      expect(new Set(memories).size).toBe(300);
      const adds = [...queueA.addsFor(scope.tenantId), ...queueB.addsFor(scope.tenantId)];
      expect(new Set(adds.map((j) => j.jobId)).size).toBe(adds.length);
      // Both relays took part: SKIP LOCKED split the rows between them instead of serialising.
      expect(queueA.addsFor(scope.tenantId).length).toBeGreaterThan(0);
      expect(queueB.addsFor(scope.tenantId).length).toBeGreaterThan(0);
      const committed = await rows();
      expect(committed.every((r) => r.dispatched && r.attempts === 1)).toBe(true);
      const missing = [];
      for (const add of adds) if (!(await inspect.getJob(add.jobId))) missing.push(add.jobId);
      expect(missing).toEqual([]);
    } finally {
      await second.close();
      await inspect.obliterate({ force: true });
      await inspect.close();
      await bull.close();
    }
  });

  it('keeps rows when the queue is down, recording attempts and the error, and delivers them once it is back', async () => {
    await freshTenant();
    const queue = new RecordingQueue();
    queue.down = true;
    const relay = new OutboxRelay(db.tx, queue, {
      installationId: INSTALLATION,
      batchSize: 100,
      pollIntervalMs: 20,
      maxBackoffMs: 60_000,
    });
    await commitJobs(4);
    const first = await relay.drain();
    expect(first.failed).toBeGreaterThanOrEqual(4);
    for (const row of await rows()) {
      expect(row).toMatchObject({ dispatched: false, attempts: 1 });
      expect(row.last_error).toContain('simulated outage');
    }

    // Started while the queue is still down: it backs off, then the recovery signal wakes it at once.
    await relay.start();
    try {
      await new Promise((r) => setTimeout(r, 200));
      expect((await rows()).every((r) => !r.dispatched)).toBe(true);
      queue.recover();
      const delivered = await waitFor(
        'delivery after recovery',
        async () => {
          const current = await rows();
          return current.every((r) => r.dispatched) ? current : undefined;
        },
        3_000,
      );
      expect(delivered.every((r) => r.attempts >= 2 && r.last_error?.includes('simulated outage'))).toBe(
        true,
      );
      expect(new Set(queue.memoriesFor(scope.tenantId)).size).toBe(4);
    } finally {
      await relay.stop();
    }
  });

  it('wakes right after a write of its process commits instead of waiting for the next poll', async () => {
    await freshTenant();
    const queue = new RecordingQueue();
    const relay = new OutboxRelay(db.tx, queue, {
      installationId: INSTALLATION,
      batchSize: 100,
      pollIntervalMs: 60_000,
    });
    await relay.start();
    try {
      // Let the start-up pass finish; after it the relay would sleep for a minute.
      await new Promise((r) => setTimeout(r, 300));
      const committedAt = Date.now();
      await commitJobs(2);
      await waitFor(
        'delivery on commit',
        () => (queue.memoriesFor(scope.tenantId).length === 2 ? true : undefined),
        5_000,
      );
      expect(Date.now() - committedAt).toBeLessThan(5_000);
      expect((await rows()).every((r) => r.dispatched)).toBe(true);
    } finally {
      await relay.stop();
    }
  });

  it('delivers by polling alone rows written by another process (no commit signal reaches it)', async () => {
    await freshTenant();
    const queue = new RecordingQueue();
    const relay = new OutboxRelay(db.tx, queue, {
      installationId: INSTALLATION,
      batchSize: 100,
      pollIntervalMs: 50,
      commits: new OutboxSignal(),
    });
    await relay.start();
    try {
      await commitJobs(3);
      await waitFor(
        'polled delivery',
        () => (queue.memoriesFor(scope.tenantId).length === 3 ? true : undefined),
        5_000,
      );
    } finally {
      await relay.stop();
    }
  });

  it('parks rows naming a job this release does not know, without blocking the rows behind them', async () => {
    await freshTenant();
    const queue = new RecordingQueue();
    const relay = new OutboxRelay(db.tx, queue, {
      installationId: INSTALLATION,
      batchSize: 100,
      pollIntervalMs: 1_000,
      invalidRowDelayMs: 60_000,
    });
    const { rows: inserted } = await db.tx.asSystem((tx) =>
      tx.query<{ id: string }>(
        `INSERT INTO outbox (tenant_id, job_name, payload) VALUES ($1, 'memory.reticulate', '{}') RETURNING id::text AS id`,
        [scope.tenantId],
      ),
    );
    await commitJobs(2);
    try {
      await relay.drain();
      const [unknown, ...known] = await rows();
      expect(unknown).toMatchObject({ id: inserted[0].id, dispatched: false, attempts: 1 });
      expect(unknown.last_error).toContain('unknown job "memory.reticulate"');
      expect(known.every((r) => r.dispatched)).toBe(true);
      // Parked: the next pass does not pick it up again.
      await relay.drain();
      expect((await rows())[0].attempts).toBe(1);
    } finally {
      await db.tx.asSystem((tx) => tx.query(`DELETE FROM outbox WHERE id = $1`, [inserted[0].id]));
    }
  });

  it('keeps index rows in the outbox while batches wait for the workers, then sends the backlog as one', async () => {
    await freshTenant();
    const queue = new RecordingQueue();
    queue.waitingJobs = INDEX_BATCHES_WAITING_BEFORE_HOLD;
    const relay = new OutboxRelay(db.tx, queue, {
      installationId: INSTALLATION,
      batchSize: 100,
      pollIntervalMs: 1_000,
    });
    await commitJobs(5);
    await expect(relay.drain()).resolves.toMatchObject({ holding: true });
    expect((await rows()).some((r) => r.dispatched)).toBe(false);
    expect(queue.addsFor(scope.tenantId)).toHaveLength(0);

    await commitJobs(5, 6);
    queue.waitingJobs = INDEX_BATCHES_WAITING_BEFORE_HOLD - 1;
    await expect(relay.drain()).resolves.toMatchObject({ holding: false });
    expect((await rows()).every((r) => r.dispatched)).toBe(true);
    const [batch, ...others] = queue.addsFor(scope.tenantId);
    expect(others).toHaveLength(0);
    // In commit order, so a memory written twice keeps its latest request.
    expect(queue.memoriesFor(scope.tenantId)).toEqual(
      Array.from({ length: 10 }, (_, i) => String(FAKE_MEMORY_ID_BASE + 1 + i)),
    );
    expect(batch.name).toBe('memory.index-batch');
  });

  it("while holding, claims the other jobs' rows without reading the held backlog", async () => {
    await freshTenant();
    const held = 3_000;
    await db.tx.asSystem((tx) =>
      tx.query(
        `INSERT INTO outbox (tenant_id, job_name, payload)
         SELECT $1, 'memory.index', jsonb_build_object('memoryId', ($2::bigint + i)::text)
           FROM generate_series(1, $3::int) AS i`,
        [scope.tenantId, FAKE_MEMORY_ID_BASE, held],
      ),
    );
    const { rows: other } = await db.tx.asSystem((tx) =>
      tx.query<{ id: string }>(
        `INSERT INTO outbox (tenant_id, job_name, payload) VALUES ($1, 'sessions.extract', '{}') RETURNING id::text AS id`,
        [scope.tenantId],
      ),
    );
    try {
      const { claimed, fetched } = await db.tx.asSystem(async (tx) => {
        // Rows read from the outbox so far (heap fetches through indexes, and scans): this view
        // also holds what earlier transactions of the connection have not reported yet.
        const read = async () => {
          const { rows: counts } = await tx.query<{ read: string }>(
            `SELECT (coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0))::text AS read
               FROM pg_stat_xact_user_tables WHERE relname = 'outbox'`,
          );
          return Number(counts[0]?.read ?? 0);
        };
        const before = await read();
        const claimed = await new OutboxRepository().claimBatch(tx, 100, ['memory.index']);
        return { claimed, fetched: (await read()) - before };
      });
      expect(claimed.map((r) => r.id)).toContain(other[0].id);
      expect(claimed.every((r) => r.jobName !== 'memory.index')).toBe(true);
      // Before: every held row was read to find the one to take (3,000 and more).
      expect(fetched).toBeLessThan(50);
    } finally {
      await db.tx.asSystem((tx) => tx.query(`DELETE FROM outbox WHERE tenant_id = $1`, [scope.tenantId]));
    }
  });

  it('while holding, a commit waits for the next look instead of causing a pass of its own', async () => {
    await freshTenant();
    const queue = new RecordingQueue();
    queue.waitingJobs = INDEX_BATCHES_WAITING_BEFORE_HOLD;
    let looks = 0;
    const waiting = queue.waiting.bind(queue);
    queue.waiting = async () => {
      looks += 1;
      return waiting();
    };
    const relay = new OutboxRelay(db.tx, queue, {
      installationId: INSTALLATION,
      batchSize: 100,
      pollIntervalMs: 60_000,
      holdingRecheckMs: 60_000,
    });
    await relay.start();
    try {
      await waitFor('the first look', () => (looks >= 1 ? true : undefined));
      await new Promise((r) => setTimeout(r, 100));
      const before = looks;
      for (let i = 0; i < 5; i += 1) await commitJobs(1, 100 + i);
      await new Promise((r) => setTimeout(r, 300));
      expect(looks - before).toBe(0);
      expect((await rows()).some((r) => r.dispatched)).toBe(false);
    } finally {
      await relay.stop();
      await db.tx.asSystem((tx) => tx.query(`DELETE FROM outbox WHERE tenant_id = $1`, [scope.tenantId]));
    }
  });

  it('claims the oldest rows first, by number rather than by text', async () => {
    await freshTenant();
    // Ids past any the sequence hands out here, across a power of ten ("10000000000" < "9999999999").
    const ids = ['9999999999', '10000000000'];
    await db.tx.asSystem((tx) =>
      tx.query(
        `INSERT INTO outbox (id, tenant_id, job_name, payload) OVERRIDING SYSTEM VALUE
         SELECT i, $1, 'sessions.extract', '{}' FROM unnest($2::bigint[]) AS i`,
        [scope.tenantId, ids],
      ),
    );
    try {
      for (const held of [[], ['memory.index']]) {
        const claimed = await db.tx.asSystem((tx) => new OutboxRepository().claimBatch(tx, 1, held));
        expect(claimed.map((r) => r.id)).toEqual([ids[0]]);
      }
    } finally {
      await db.tx.asSystem((tx) => tx.query(`DELETE FROM outbox WHERE tenant_id = $1`, [scope.tenantId]));
    }
  });

  it('ignores a re-add of a job id BullMQ already holds', async () => {
    await freshTenant();
    const prefix = `test-relay-${randomUUID().slice(0, 8)}`;
    const bull = new BullMqJobQueue({ url: redisUrl, prefix });
    const inspect = new Queue('memory.index', { connection: { url: redisUrl }, prefix });
    try {
      const job: QueuedJob = {
        name: 'memory.index',
        jobId: outboxJobId(INSTALLATION, { id: 42, createdUs: '1' }),
        payload: payload(42),
      };
      await bull.add([job]);
      await bull.add([job, job]);
      const counts = await inspect.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed');
      expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(1);
      await expect(bull.ping()).resolves.toBeUndefined();
    } finally {
      await inspect.obliterate({ force: true });
      await inspect.close();
      await bull.close();
    }
  });
});
