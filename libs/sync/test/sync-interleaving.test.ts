import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Principal } from '@app/tenancy';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';
import { asUser, insertMemory, ManualWriter, principalIn, settle, syncUseCases } from './sync-harness';

/**
 * The bug the feed's positions exist to prevent: a transaction that began earlier commits later,
 * and its row becomes visible behind a reader's position.
 */
describe('sync under interleaved writers (real Postgres)', () => {
  let db: TestDatabase;
  let sync: ReturnType<typeof syncUseCases>;
  let alice: Principal;
  let writerA: ManualWriter;
  let writerB: ManualWriter;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 6);
    sync = syncUseCases(db);
    alice = await principalIn(await createTestTenant(db));
    writerA = await ManualWriter.open(inject('databaseUrl'), alice);
    writerB = await ManualWriter.open(inject('databaseUrl'), alice);
  });
  afterAll(async () => {
    await writerA.close();
    await writerB.close();
    await db.close();
  });

  /** Reads every page after `cursor`; returns the ids seen and the cursor to continue from. */
  async function pull(cursor: string | undefined): Promise<{ ids: number[]; cursor: string }> {
    const ids: number[] = [];
    for (;;) {
      const page = await sync.changes.execute(alice, { cursor, limit: 10 });
      ids.push(...page.memories.map((m) => m.id));
      cursor = page.nextCursor;
      if (!page.hasMore) return { ids, cursor };
    }
  }

  it('A begins and inserts, B inserts and commits without waiting, reader syncs, A commits, reader syncs again: both arrive', async () => {
    const start = await pull(undefined);

    await writerA.begin();
    const a = await writerA.insert(`A ${Date.now()}`);
    // B is not held up by A (no per-user lock): alice's writers never queue behind each other.
    await writerB.begin();
    const b = await writerB.insert(`B ${Date.now()}`);
    await writerB.commit();

    // …but the feed holds B's row back while A, which began first, may still commit below it.
    const during = await pull(start.cursor);
    expect(during.ids).toEqual([]);

    await writerA.commit();
    await settle(db);
    const after = await pull(during.cursor);
    expect(after.ids).toEqual([a, b]);
  });

  it('a writer that rolls back holds the feed back only while it runs', async () => {
    const start = await pull(undefined);
    await writerA.begin();
    await writerA.insert(`rolled back ${Date.now()}`);
    const b = await insertMemory(db, alice, `B0 ${Date.now()}`);
    expect((await pull(start.cursor)).ids).toEqual([]);
    await writerA.rollback();
    await settle(db);
    expect((await pull(start.cursor)).ids).toEqual([b]);
  });

  it('A begins earlier but commits after B: the cursor still delivers A’s row', async () => {
    const start = await pull(undefined);
    await writerA.begin();
    await writerA.touchClock(); // A's now(), hence its updated_at, is fixed here: before B's
    await sleep(20);
    await writerB.begin();
    const b = await writerB.insert(`B2 ${Date.now()}`);
    await writerB.commit();

    // A holds no transaction id until it writes, so it does not hold B back.
    await settle(db);
    const first = await pull(start.cursor);
    expect(first.ids).toEqual([b]);

    const a = await writerA.insert(`A2 ${Date.now()}`);
    await writerA.commit();
    await settle(db);
    const second = await pull(first.cursor);
    expect(second.ids).toEqual([a]);
  });

  it('GUARD (expected to miss): the naive `updated_at > since` query loses the late-committing row', async () => {
    // The same interleaving read the timestamp way. This test passes BECAUSE the naive query is
    // wrong; if it ever starts failing, the guard no longer demonstrates the bug it documents.
    const naive = async (since: string | null) =>
      asUser<{ id: string; updated_at: string }>(
        db,
        alice,
        `SELECT id, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS updated_at
           FROM memories WHERE owner_id = $1 AND ($2::timestamptz IS NULL OR updated_at > $2::timestamptz)
          ORDER BY updated_at`,
        [alice.userId, since],
      );
    const baseline = await naive(null);
    let since = baseline.length > 0 ? baseline[baseline.length - 1].updated_at : null;

    await writerA.begin();
    await writerA.touchClock();
    await sleep(20);
    await writerB.begin();
    const b = await writerB.insert(`B3 ${Date.now()}`);
    await writerB.commit();

    const first = await naive(since);
    expect(first.map((r) => Number(r.id))).toEqual([b]);
    since = first[first.length - 1].updated_at;

    const a = await writerA.insert(`A3 ${Date.now()}`);
    await writerA.commit();
    const second = await naive(since);
    expect(second.map((r) => Number(r.id))).not.toContain(a); // lost: the bug
    const stored = await asUser(db, alice, `SELECT 1 FROM memories WHERE id = $1`, [a]);
    expect(stored).toHaveLength(1); // …although the row is committed and visible
  });
});
