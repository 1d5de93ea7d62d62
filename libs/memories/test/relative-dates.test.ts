import { indexInputHash } from '@app/jobs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CreateMemoryUseCase, ImportMemoriesUseCase, UpdateMemoryUseCase } from '@app/memories';
import { MemoryReadRepository, type MemoryWriter } from '@app/memories/testing';
import { OutboxWriter } from '@app/jobs';
import { AuditWriter, type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWriterFor, importParts } from '../../../test/support/memory-writes';

const limits = { maxContentBytes: 1024, maxImportBatch: 10, maxListLimit: 100 };
// Said on Friday 19 January 2024: "yesterday" is Thursday 18 January.
const SAID = '2024-01-19T09:30:00.000Z';
const THURSDAY = 'Thursday 18 January 2024';

describe('relative dates in stored memories (real Postgres)', () => {
  let db: TestDatabase;
  let repo: MemoryReadRepository;
  let writer: MemoryWriter;
  let importer: ImportMemoriesUseCase;
  let create: CreateMemoryUseCase;
  let update: UpdateMemoryUseCase;
  let alice: Principal;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    repo = new MemoryReadRepository();
    writer = await memoryWriterFor(db.tx, limits);
    importer = new ImportMemoriesUseCase(
      writer,
      new AuditWriter(),
      new OutboxWriter(),
      limits,
      ...importParts(),
    );
    create = new CreateMemoryUseCase(writer);
    update = new UpdateMemoryUseCase(writer);
    alice = await memberPrincipal(await createTestTenant(db), 'alice');
  });
  afterAll(async () => db.close());

  const read = async (id: number) => {
    const memory = await db.tx.inTenant(alice, (tx) => repo.findLive(alice, tx, id));
    if (!memory) throw new Error(`memory ${id} not found`);
    return memory;
  };
  /** What the text leg matches on, and the index input hash the embedding job was asked for. */
  const indexed = (id: number) =>
    db.tx.asSystem(async (tx) => {
      const match = await tx.query<{ matches: boolean }>(
        `SELECT search_vector @@ plainto_tsquery('english', 'Thursday 18 January 2024') AS matches
           FROM memories WHERE id = $1`,
        [id],
      );
      const job = await tx.query<{ hash: string }>(
        `SELECT payload->>'contentHash' AS hash FROM outbox
          WHERE job_name = 'memory.index' AND payload->>'memoryId' = $1 ORDER BY id DESC LIMIT 1`,
        [String(id)],
      );
      return { matches: match.rows[0].matches, jobHash: job.rows[0]?.hash };
    });

  it('indexes the day a relative date names, resolved against when the memory was said', async () => {
    const content = `inventory-sync threw 502s yesterday ${randomUUID()}`;
    const [{ id }] = await importer.execute(alice, [
      newMemory(content, { expandedKeywords: 'outage', createdAt: SAID }),
    ]);
    const memory = await read(id);
    expect(memory.expandedKeywords).toBe(`outage ${THURSDAY}`);
    // The embedding job embeds content, keywords and tags as stored: the dates are in its input.
    expect(await indexed(id)).toEqual({ matches: true, jobHash: indexInputHash(memory) });
  });

  it('adds nothing to a memory without relative dates', async () => {
    const { id } = await create.execute(alice, newMemory(`use pnpm, not npm ${randomUUID()}`));
    expect((await read(id)).expandedKeywords).toBe('');
    expect((await indexed(id)).matches).toBe(false);
  });

  it('re-resolves on update against the memory’s own date, keeping the keywords the writer gave', async () => {
    const [{ id }] = await importer.execute(alice, [
      newMemory(`the cache flapped yesterday ${randomUUID()}`, {
        expandedKeywords: 'cache',
        createdAt: SAID,
      }),
    ]);
    await update.execute(alice, id, { content: `the cache flapped last Friday ${randomUUID()}` });
    let memory = await read(id);
    expect(memory.expandedKeywords).toBe('cache Friday 12 January 2024');
    expect(await indexed(id)).toEqual({ matches: false, jobHash: indexInputHash(memory) });

    // Keywords written back as read keep one copy of the dates; new ones replace the writer's part.
    await update.execute(alice, id, { expandedKeywords: memory.expandedKeywords });
    expect((await read(id)).expandedKeywords).toBe('cache Friday 12 January 2024');
    await update.execute(alice, id, { expandedKeywords: 'redis eviction' });
    memory = await read(id);
    expect(memory.expandedKeywords).toBe('redis eviction Friday 12 January 2024');
    expect((await indexed(id)).jobHash).toBe(indexInputHash(memory));
  });
});
