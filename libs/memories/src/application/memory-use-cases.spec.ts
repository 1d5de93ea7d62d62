import { describe, expect, it, vi } from 'vitest';
import { OutboxWriter } from '@app/jobs';
import type { Tx } from '@app/persistence';
import { specPrincipal, useCaseWithFakes } from '@app/testing';
import { AuditWriter } from '@app/tenancy';
import type { ImportedMemory, StoredMemory } from '../domain/memory';
import { MemoryErrorCode } from '../domain/memory.errors';
import { SecretDetector } from '@app/secrets';
import { MEMORY_LIMITS, type MemoryLimits } from '../write/memory-limits';
import { MemoryVersionWriteRepository } from '../write/memory-version-write.repository';
import { SecretScreen } from '../write/secret-screen';
import { MemoryWriter, type CreateOptions } from '../write/memory-writer';
import { CreateMemoryUseCase } from './create-memory.use-case';
import { ANALYZE_AFTER_IMPORTED, ImportMemoriesUseCase } from './import-memories.use-case';
import { UpdateMemoryUseCase } from './update-memory.use-case';

const alice = specPrincipal('alice');
const limits: MemoryLimits = { maxContentBytes: 4096, maxImportBatch: 200, maxListLimit: 100 };
const item = (n: number): ImportedMemory => ({
  content: `fact ${n}`,
  category: 'fact',
  tags: [],
  expandedKeywords: '',
  importance: 0.5,
  project: null,
});
const storedAs = (n: number): StoredMemory => ({ id: 100 + n, category: 'fact', importance: 0.5 });

/** A writer whose `create` runs the caller's `within` in a fake transaction, as the real one does. */
function fakeWriter() {
  const tx = { fake: 'tx' } as unknown as Tx;
  return {
    tx,
    create: vi.fn(async (_p: unknown, items: readonly ImportedMemory[], options: CreateOptions = {}) => {
      const stored = items.map((_, i) => storedAs(i));
      await options.within?.(tx, stored);
      return stored;
    }),
    update: vi.fn(async (_p: unknown, id: number) => ({ updated: id })),
  };
}

describe('memory use cases over the writer (ports faked)', () => {
  it('create hands one memory and its key to the writer and answers its row', async () => {
    const writer = fakeWriter();
    const create = await useCaseWithFakes(CreateMemoryUseCase, [[MemoryWriter, writer]]);
    expect(await create.execute(alice, item(0), { idempotencyKey: 'k' })).toEqual(storedAs(0));
    expect(writer.create).toHaveBeenCalledWith(alice, [item(0)], { idempotencyKey: 'k' });
  });

  it('update hands the patch to the writer unchanged', async () => {
    const writer = fakeWriter();
    const update = await useCaseWithFakes(UpdateMemoryUseCase, [[MemoryWriter, writer]]);
    expect(await update.execute(alice, 9, { tags: ['ops'] })).toEqual({ updated: 9 });
    expect(writer.update).toHaveBeenCalledWith(alice, 9, { tags: ['ops'] });
  });

  async function importer(writer = fakeWriter()) {
    const audit = { record: vi.fn(async () => undefined) };
    const outbox = { enqueue: vi.fn(async () => undefined) };
    const versions = { importVersions: vi.fn(async () => 0) };
    const useCase = await useCaseWithFakes(ImportMemoriesUseCase, [
      [MemoryWriter, writer],
      [AuditWriter, audit],
      [OutboxWriter, outbox],
      [MEMORY_LIMITS, limits],
      [SecretScreen, new SecretScreen(new SecretDetector())],
      [MemoryVersionWriteRepository, versions],
    ]);
    return { useCase, writer, audit, outbox, versions };
  }

  it('import refuses a batch over the limit before the writer sees it', async () => {
    const { useCase, writer } = await importer();
    const batch = Array.from({ length: limits.maxImportBatch + 1 }, (_, i) => item(i));
    await expect(useCase.execute(alice, batch)).rejects.toMatchObject({
      code: MemoryErrorCode.BatchTooLarge,
    });
    expect(writer.create).not.toHaveBeenCalled();
  });

  it("import writes the batch as an import and records it in the rows' transaction", async () => {
    const { useCase, writer, audit, outbox } = await importer();
    const stored = await useCase.execute(alice, [item(0), item(1)], { idempotencyKey: 'batch-1' });
    expect(stored).toEqual([storedAs(0), storedAs(1)]);
    expect(writer.create.mock.calls[0][2]).toMatchObject({ idempotencyKey: 'batch-1', asImport: true });
    expect(audit.record).toHaveBeenCalledWith(alice, writer.tx, {
      action: 'memory.import',
      targetType: 'memory',
      details: { count: 2, ids: [100, 101] },
    });
    // A small batch leaves the planner statistics to autovacuum.
    expect(outbox.enqueue).not.toHaveBeenCalled();
  });

  it('import gives each new row the versions its item carried, with secrets redacted', async () => {
    const { useCase, writer, versions } = await importer();
    const secret = 'ghp_' + 'Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8';
    const version = {
      version: 1,
      content: `token ${secret}`,
      category: 'facts',
      tags: [],
      importance: 0.5,
      project: null,
      visibility: 'team' as const,
      isSensitive: false,
      validFrom: '2025-01-01T00:00:00Z',
      replacedAt: '2025-01-02T00:00:00Z',
      changedFields: ['content' as const],
    };
    await useCase.execute(alice, [item(0), { ...item(1), versions: [version] }]);
    expect(versions.importVersions).toHaveBeenCalledTimes(2);
    expect(versions.importVersions).toHaveBeenNthCalledWith(1, alice, writer.tx, 100, []);
    expect(versions.importVersions).toHaveBeenNthCalledWith(2, alice, writer.tx, 101, [
      { ...version, content: expect.stringContaining('[REDACTED:'), isSensitive: true },
    ]);
    expect(JSON.stringify(versions.importVersions.mock.calls)).not.toContain(secret);
  });

  it('a bulk import queues a statistics refresh with its rows', async () => {
    const { useCase, writer, outbox } = await importer();
    await useCase.execute(
      alice,
      Array.from({ length: ANALYZE_AFTER_IMPORTED }, (_, i) => item(i)),
    );
    expect(outbox.enqueue).toHaveBeenCalledWith(alice, writer.tx, {
      name: 'maintenance.analyze',
      payload: { tenantId: alice.tenantId, tables: ['memories', 'memory_index_state'] },
      requestId: undefined,
    });
  });
});
