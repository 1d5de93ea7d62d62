import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { type Principal } from '@app/tenancy';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';
import {
  asUser,
  insertMemory,
  ManualWriter,
  principalIn,
  settle,
  SyncFollower,
  syncUseCases,
} from './sync-harness';

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

  describe('a tag rule racing a change of the owner’s tags', () => {
    let owner: Principal;
    let carol: Principal;
    let carols: SyncFollower;
    let memory: number;
    // Two connections of the owner's: one retags, one creates the rule.
    let retagger: ManualWriter;
    let sharer: ManualWriter;
    const rule = `INSERT INTO tag_shares (owner_id, tag, shared_with, tenant_id, permission)
                  VALUES ($1, 'ops', $2, $3, 'read')`;
    const ruleParams = () => [owner.userId, carol.userId, owner.tenantId];

    beforeEach(async () => {
      const tenant = await createTestTenant(db);
      [owner, carol] = [await principalIn(tenant), await principalIn(tenant)];
      retagger = await ManualWriter.open(inject('databaseUrl'), owner);
      sharer = await ManualWriter.open(inject('databaseUrl'), owner);
      memory = await insertMemory(db, owner, `tagged later ${Date.now()}`);
      carols = new SyncFollower(db, sync, carol);
      await carols.pull();
    });
    afterEach(async () => {
      await retagger.close();
      await sharer.close();
    });

    it('a rule created while the tag is being added still brings the memory', async () => {
      await retagger.begin();
      await retagger.query(`UPDATE memories SET tags = '{ops}' WHERE id = $1`, [memory]);
      await sharer.begin();
      // The rule's fan-out must not read the owner's memories before the retag commits.
      const creating = sharer.query(rule, ruleParams());
      await sleep(100);
      await retagger.commit();
      await creating;
      await carols.pull({ settled: false }); // the rule is not committed yet: nothing to see
      await sharer.commit();
      await carols.pull();
      expect(carols.copy.has(memory)).toBe(true);
    });

    it('a tag removed while the rule is being created still sends the tombstone', async () => {
      await retagger.query(`UPDATE memories SET tags = '{ops}' WHERE id = $1`, [memory]);
      await sharer.begin();
      await sharer.query(rule, ruleParams());
      await retagger.begin();
      // The retag must not read the owner's rules before the rule commits.
      const retagging = retagger.query(`UPDATE memories SET tags = '{}' WHERE id = $1`, [memory]);
      await sleep(100);
      await sharer.commit();
      await retagging;
      await carols.pull({ settled: false }); // the rule is committed, the retag not yet
      expect(carols.copy.has(memory)).toBe(true);
      await retagger.commit();
      await carols.pull();
      expect(carols.copy.has(memory)).toBe(false);
    });
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
