import { OutboxWriter } from '@app/jobs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  CreateMemoryUseCase,
  DeleteMemoryUseCase,
  ImportMemoriesUseCase,
  MemoryError,
  type NewMemory,
} from '@app/memories';
import { MemoryReadRepository, MemoryWriteRepository } from '@app/memories/testing';
import { MemoryWriter, NewMemoryRows } from '@app/memories/testing';
import { AuditWriter, type Principal } from '@app/tenancy';
import {
  createTestTenant,
  openTestDatabase,
  type TestDatabase,
  newMemory,
  memberPrincipal,
} from '@app/testing';
import { memoryWritePartsFor, importParts } from '../../../test/support/memory-writes';

const limits = { maxContentBytes: 1024, maxImportBatch: 10, maxListLimit: 100 };
const memory = (content: string): NewMemory => newMemory(content, { tags: ['t'] });

describe('memory use cases against real Postgres', () => {
  let db: TestDatabase;
  let repo: MemoryReadRepository;
  let writer: MemoryWriter;
  let rows: NewMemoryRows;
  let create: CreateMemoryUseCase;
  let importer: ImportMemoriesUseCase;
  let remove: DeleteMemoryUseCase;
  let alice: Principal;
  let bob: Principal;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 8);
    repo = new MemoryReadRepository();
    ({ writer, rows } = await memoryWritePartsFor(db.tx, limits));
    create = new CreateMemoryUseCase(writer);
    importer = new ImportMemoriesUseCase(
      writer,
      new AuditWriter(),
      new OutboxWriter(),
      limits,
      ...importParts(),
    );
    remove = new DeleteMemoryUseCase(writer);
    const tenant = await createTestTenant(db);
    const principal = (name: string) => memberPrincipal(tenant, name);
    alice = await principal('alice');
    bob = await principal('bob');
  });
  afterAll(async () => db.close());

  it('row-level security hides alice’s row even when the repository is handed alice’s ids inside bob’s transaction', async () => {
    const { id } = await create.execute(alice, memory('only alice may read this'));
    // The application filter says "alice"; the transaction's RLS settings say "bob". RLS wins.
    const leaked = await db.tx.inTenant(bob, (tx) => repo.findLive(alice, tx, id));
    expect(leaked).toBeNull();
    const listed = await db.tx.inTenant(bob, (tx) => repo.list(alice, tx, { limit: 100, offset: 0 }));
    expect(listed).toEqual({ memories: [], total: 0 });
    await db.tx.inTenant(bob, (tx) => new MemoryWriteRepository().softDelete(alice, tx, id));
    expect(await db.tx.inTenant(alice, (tx) => repo.findLive(alice, tx, id))).not.toBeNull();
  });

  it('stores one row for concurrent exact duplicates and records one index job with it', async () => {
    const content = `concurrent duplicate ${randomUUID()}`;
    const results = await Promise.all(
      Array.from({ length: 6 }, () => create.execute(alice, memory(content))),
    );
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    const jobs = await db.tx.asSystem((tx) =>
      tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbox
          WHERE tenant_id = $1 AND job_name = 'memory.index' AND payload->>'memoryId' = $2`,
        [alice.tenantId, String(results[0].id)],
      ),
    );
    expect(jobs.rows[0].n).toBe(1);
    const state = await db.tx.inTenant(alice, (tx) =>
      tx.query<{ status: string }>(`SELECT status FROM memory_index_state WHERE memory_id = $1`, [
        results[0].id,
      ]),
    );
    expect(state.rows).toEqual([{ status: expect.stringMatching(/pending|indexed/) }]);
  });

  it('answers the duplicate a transaction commits while the store waits on it, and writes nothing else', async () => {
    const content = `committed meanwhile ${randomUUID()}`;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const rowWritten = new Promise<void>((resolve) => (inserted = resolve));
    // Another request's transaction writes the same content and stays open.
    const first = db.tx.inTenant(alice, async (tx) => {
      const prepared = await rows.prepare(alice, rows.screenNew(memory(content)));
      const stored = await rows.store(alice, tx, prepared);
      if (stored === null) throw new Error('a store that does not carry the commit always decides');
      inserted();
      await held;
      return stored;
    });
    await rowWritten;
    // This store's single statement (with the commit) waits on that row, then writes nothing.
    const second = create.execute(alice, memory(content));
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(b.id).toBe(a.id);
    const counts = await db.tx.asSystem((tx) =>
      tx.query<{ memories: number; jobs: number; audits: number }>(
        `SELECT (SELECT count(*)::int FROM memories WHERE tenant_id = $1 AND content = $2) AS memories,
                (SELECT count(*)::int FROM outbox WHERE tenant_id = $1 AND job_name = 'memory.index'
                    AND payload->>'memoryId' = $3) AS jobs,
                (SELECT count(*)::int FROM audit_log WHERE tenant_id = $1 AND action = 'memory.create'
                    AND target_id = $3) AS audits`,
        [alice.tenantId, content, String(a.id)],
      ),
    );
    expect(counts.rows[0]).toEqual({ memories: 1, jobs: 1, audits: 1 });
  });

  it('gives concurrent requests with one Idempotency-Key one row and one answer', async () => {
    const key = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => create.execute(alice, memory(`idem ${key}`), { idempotencyKey: key })),
    );
    expect(results.every((r) => r.id === results[0].id)).toBe(true);
  });

  it('imports a batch once for concurrent requests with one Idempotency-Key; another batch with it is refused', async () => {
    const key = randomUUID();
    const batch = [memory(`idem import ${key} a`), memory(`idem import ${key} b`)];
    const results = await Promise.all(
      Array.from({ length: 4 }, () => importer.execute(alice, batch, { idempotencyKey: key })),
    );
    for (const r of results) expect(r).toEqual(results[0]);
    const audit = await db.tx.asSystem((tx) =>
      tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM audit_log WHERE action = 'memory.import' AND details->'ids' = $1::jsonb`,
        [JSON.stringify(results[0].map((r) => r.id))],
      ),
    );
    expect(audit.rows[0].n).toBe(1);
    await expect(
      importer.execute(alice, [memory(`idem import ${key} other`)], { idempotencyKey: key }),
    ).rejects.toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('rolls back a whole import when one item fails at the database, leaving no rows and no jobs', async () => {
    const marker = randomUUID();
    const before = await db.tx.asSystem((tx) =>
      tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox`),
    );
    // importance is checked by the database too: 2 violates the CHECK constraint mid-batch.
    await expect(
      importer.execute(alice, [memory(`imp ${marker} a`), { ...memory(`imp ${marker} b`), importance: 2 }]),
    ).rejects.toThrow();
    const rows = await db.tx.inTenant(alice, (tx) =>
      tx.query(`SELECT id FROM memories WHERE content LIKE $1`, [`imp ${marker}%`]),
    );
    expect(rows.rows).toHaveLength(0);
    const after = await db.tx.asSystem((tx) =>
      tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox`),
    );
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('refuses content over the byte limit before opening a transaction', async () => {
    await expect(create.execute(alice, memory('z'.repeat(1025)))).rejects.toBeInstanceOf(MemoryError);
  });

  it('lets only the owner delete, and a repeat delete reports it as already deleted', async () => {
    const { id } = await create.execute(alice, memory(`deletable ${randomUUID()}`));
    await expect(remove.execute(bob, id)).rejects.toMatchObject({ code: 'memory_not_found' });
    expect((await remove.execute(alice, id)).preview).toMatch(/^deletable/);
    expect(await remove.execute(alice, id)).toEqual({ deleted: id, preview: '[already deleted]' });
  });
});
