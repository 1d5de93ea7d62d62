import { describe, expect, it, vi } from 'vitest';
import { TransactionRunner, type Tx } from '@app/persistence';
import { fakeTransactions, specPrincipal, useCaseWithFakes } from '@app/testing';
import type { ImportedMemory, NewMemory, StoredMemory } from '../domain/memory';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { IdempotencyRepository } from './idempotency.repository';
import { MemoryIndexing } from './memory-indexing';
import { MemoryLifecycle } from './memory-lifecycle';
import { MemoryUpdate } from './memory-update';
import { MemoryWriter } from './memory-writer';
import { NewMemoryRows, TeamProbeNeeded, type PreparedMemory } from './new-memory-rows';
import { SecretStaging, type StagedSecret } from './secret-staging';

const alice = specPrincipal('alice');
const memory = (content: string, extra: Partial<ImportedMemory> = {}): ImportedMemory => ({
  content,
  category: 'fact',
  tags: [],
  expandedKeywords: '',
  importance: 0.5,
  project: null,
  ...extra,
});
const staged = (memoryId: number): StagedSecret => ({
  memoryId,
  secret: { ref: `vault:${memoryId}`, version: 1 },
  newMemory: true,
  intentId: `intent-${memoryId}`,
});

/** The writer with every port faked; `rows.store` answers ids 10, 11, … unless told otherwise. */
async function writerWith(
  options: {
    store?: (
      prepared: PreparedMemory,
      last: boolean,
    ) => Promise<(StoredMemory & { created: boolean }) | null>;
    claim?: () => Promise<unknown>;
    secretFor?: (content: string) => StagedSecret | null;
  } = {},
) {
  const transactions = fakeTransactions();
  let nextId = 10;
  const rows = {
    screenNew: vi.fn((m: NewMemory) => {
      if (m.content === '') throw new MemoryError(MemoryErrorCode.ContentTooLarge, 'content is empty');
      return { value: m, kinds: [], secret: null };
    }),
    stage: vi.fn(async (_p: unknown, screened: { value: NewMemory }) => ({
      screened,
      staged: options.secretFor?.(screened.value.content) ?? null,
    })),
    withNear: vi.fn(
      async (_p: unknown, items: readonly Omit<PreparedMemory, 'near' | 'probed'>[], when?: string) =>
        items.map((item) => ({ ...item, near: [], probed: when === 'always' })),
    ),
    store: vi.fn(async (_principal: unknown, _tx: Tx, prepared: PreparedMemory, last: boolean) =>
      options.store ? options.store(prepared, last) : stored(prepared),
    ),
    linkImported: vi.fn(async () => undefined),
  };
  function stored(p: PreparedMemory) {
    return {
      id: nextId++,
      category: p.screened.value.category,
      importance: p.screened.value.importance,
      created: true,
    };
  }
  const discarded: StagedSecret[][] = [];
  const staging = {
    withStaged: async <T>(_p: unknown, list: readonly StagedSecret[], write: () => Promise<T>) => {
      try {
        return await write();
      } catch (error) {
        discarded.push([...list]);
        throw error;
      }
    },
    discard: vi.fn(async (_p: unknown, list: readonly StagedSecret[]) => void discarded.push([...list])),
  };
  const idempotency = {
    claim: vi.fn(options.claim ?? (async () => ({ kind: 'claimed' }))),
    complete: vi.fn(async () => undefined),
  };
  const writer = await useCaseWithFakes(MemoryWriter, [
    [TransactionRunner, transactions],
    [NewMemoryRows, rows],
    [MemoryUpdate, {}],
    [MemoryLifecycle, {}],
    [MemoryIndexing, {}],
    [SecretStaging, staging],
    [IdempotencyRepository, idempotency],
  ]);
  return { writer, rows, idempotency, discarded, transactions };
}

describe('MemoryWriter.create (ports faked)', () => {
  it('stores a single memory in one statement that carries the commit', async () => {
    const { writer, rows, transactions } = await writerWith();
    const stored = await writer.create(alice, [memory('deploys go out on Tuesdays')]);
    expect(stored).toEqual([{ id: 10, category: 'fact', importance: 0.5 }]);
    expect(rows.store).toHaveBeenCalledTimes(1);
    expect(rows.store.mock.calls[0][3]).toBe(true);
    expect(transactions.runs).toHaveLength(1);
  });

  it('looks for near restatements and writes again when the write finds teammates it did not probe for', async () => {
    const { writer, rows, transactions, discarded } = await writerWith({
      secretFor: (content) => (content.includes('token') ? staged(7) : null),
      store: async (prepared) => {
        if (!prepared.probed) throw new TeamProbeNeeded();
        return { id: 50, category: 'fact', importance: 0.5, created: true };
      },
    });
    const stored = await writer.create(alice, [memory('the deploy token is rotated')], {
      asImport: true,
    });
    expect(stored.map((s) => s.id)).toEqual([50]);
    // Probed on the second pass only, every item at once, and the staged secret kept for it.
    expect(rows.withNear.mock.calls.map((call) => call[2])).toEqual([undefined, 'always']);
    expect(rows.withNear.mock.calls[1][1]).toHaveLength(1);
    expect(transactions.runs).toHaveLength(2);
    expect(discarded).toEqual([]);
  });

  it('stores again in steps when that statement wrote nothing (a duplicate committed meanwhile)', async () => {
    let first = true;
    const { writer, rows, transactions } = await writerWith({
      store: async (_p, last) => {
        if (first) {
          first = false;
          return null;
        }
        return { id: 42, category: 'fact', importance: 0.5, created: false, last } as never;
      },
    });
    const stored = await writer.create(alice, [memory('the cache is warmed at boot')]);
    expect(stored.map((s) => s.id)).toEqual([42]);
    expect(rows.store.mock.calls.map((call) => call[3])).toEqual([true, false]);
    expect(transactions.runs).toHaveLength(2);
  });

  it('never lets a statement carry the commit when a key, an import or more rows follow', async () => {
    const { writer, rows } = await writerWith();
    await writer.create(alice, [memory('one')], { idempotencyKey: 'k1' });
    await writer.create(alice, [memory('two'), memory('three')], { asImport: true });
    expect(rows.store.mock.calls.map((call) => call[3])).toEqual([false, false, false]);
  });

  it("asks for teammates' duplicates of an import's items once, all items together, after staging each", async () => {
    const { writer, rows } = await writerWith();
    await writer.create(alice, [memory('one'), memory('two'), memory('three')], { asImport: true });
    expect(rows.stage).toHaveBeenCalledTimes(3);
    expect(rows.withNear).toHaveBeenCalledTimes(1);
    const asked = rows.withNear.mock.calls[0][1].map((item) => item.screened.value.content);
    expect(asked).toEqual(['one', 'two', 'three']);
  });

  it('answers a replayed key with the first response, writes nothing and discards the secret staged for it', async () => {
    const first = { id: 7, category: 'fact', importance: 0.5 };
    const { writer, rows, discarded, idempotency } = await writerWith({
      claim: async () => ({ kind: 'replay', response: first }),
      secretFor: () => staged(99),
    });
    const stored = await writer.create(alice, [memory('token abc')], { idempotencyKey: 'k1' });
    expect(stored).toEqual([first]);
    expect(rows.store).not.toHaveBeenCalled();
    expect(idempotency.complete).not.toHaveBeenCalled();
    expect(discarded).toEqual([[staged(99)]]);
  });

  it('refuses a key reused with another body, and discards the staged secret', async () => {
    const { writer, rows, discarded } = await writerWith({
      claim: async () => ({ kind: 'mismatch' }),
      secretFor: () => staged(5),
    });
    const refused = writer.create(alice, [memory('token abc')], { idempotencyKey: 'k1' });
    await expect(refused).rejects.toMatchObject({ code: MemoryErrorCode.IdempotencyKeyReused });
    expect(rows.store).not.toHaveBeenCalled();
    expect(discarded).toEqual([[staged(5)]]);
  });

  it('discards every staged secret when the rows do not commit, and passes the error on', async () => {
    const { writer, discarded } = await writerWith({
      secretFor: (content) => (content.startsWith('secret') ? staged(content.length) : null),
      store: async () => {
        throw new Error('connection reset');
      },
    });
    const items = [memory('secret one'), memory('plain'), memory('secret three')];
    await expect(writer.create(alice, items, { asImport: true })).rejects.toThrow('connection reset');
    expect(discarded).toEqual([[staged(10), staged(12)]]);
  });

  it('names the import item that fails screening, before anything is staged or written', async () => {
    const { writer, rows } = await writerWith();
    const refused = writer.create(alice, [memory('fine'), memory('')], { asImport: true });
    await expect(refused).rejects.toThrow(/^item 1: content is empty$/);
    expect(rows.stage).not.toHaveBeenCalled();
    expect(rows.store).not.toHaveBeenCalled();
  });

  it('remakes links between the items of an import and drops those that leave the batch', async () => {
    const { writer, rows, transactions } = await writerWith();
    const within = vi.fn(async (_tx: Tx, _stored: readonly StoredMemory[]) => undefined);
    const items = [
      memory('a', {
        sourceId: 1,
        sourceLinks: [
          { id: 2, linkType: 'see-also' },
          { id: 99, linkType: 'see-also' },
        ],
      }),
      memory('b', { sourceId: 2, sourceLinks: [{ id: 1, linkType: 'supersedes' }] }),
    ];
    const stored = await writer.create(alice, items, { asImport: true, within });
    expect(stored.map((s) => s.id)).toEqual([10, 11]);
    expect(rows.linkImported.mock.calls.map((call) => (call as unknown[])[2])).toEqual([
      { srcId: 10, dstId: 11, linkType: 'see-also' },
      { srcId: 11, dstId: 10, linkType: 'supersedes' },
    ]);
    expect(within).toHaveBeenCalledWith(transactions.tx, stored);
  });

  it("keeps a single store's answer under its key as one object, an import's as the list", async () => {
    const { writer, idempotency } = await writerWith();
    await writer.create(alice, [memory('one')], { idempotencyKey: 'single' });
    await writer.create(alice, [memory('two')], { idempotencyKey: 'batch', asImport: true });
    const answers = idempotency.complete.mock.calls.map((call) => (call as unknown[])[3]);
    expect(answers).toEqual([
      { id: 10, category: 'fact', importance: 0.5 },
      [{ id: 11, category: 'fact', importance: 0.5 }],
    ]);
  });
});
