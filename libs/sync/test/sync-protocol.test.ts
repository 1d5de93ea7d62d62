import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SyncError, SyncErrorCode, type SyncPage } from '@app/sync';
import { type Principal } from '@app/tenancy';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';
import {
  asAdmin,
  asUser,
  changeSeqOf,
  insertMemory,
  principalIn,
  readJson,
  settle,
  syncUseCases,
} from './sync-harness';

interface SeedBody {
  next_cursor: string;
  server_time: string;
  tombstones: Array<{ id: number; deleted_at: string }>;
  memories: Array<{ id: number; deleted_at: string | null; expanded_keywords: string; content: string }>;
}

const codeOf = async (work: Promise<unknown>) => {
  try {
    await work;
  } catch (error) {
    if (error instanceof SyncError) return error.code;
    throw error;
  }
  return 'no error';
};

describe('sync protocol (real Postgres)', () => {
  let db: TestDatabase;
  let sync: ReturnType<typeof syncUseCases>;
  let alice: Principal;
  let bob: Principal;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 6);
    sync = syncUseCases(db);
    const tenant = await createTestTenant(db);
    alice = await principalIn(tenant);
    bob = await principalIn(tenant);
  });
  afterAll(async () => db.close());

  const all = async (who: Principal, cursor?: string) => {
    const pages: SyncPage[] = [];
    for (;;) {
      const page = await sync.changes.execute(who, { cursor, limit: 2 });
      pages.push(page);
      cursor = page.nextCursor;
      if (!page.hasMore) return { pages, cursor, page };
    }
  };

  describe('the change-position trigger', () => {
    it('positions visible changes only, at the writing transaction, and ignores anyone setting change_seq', async () => {
      const id = await insertMemory(db, alice, `trigger ${Date.now()}`);
      const inserted = await changeSeqOf(db, id);
      expect(inserted).toBeGreaterThan(0);

      // A bare timestamp touch is bookkeeping, not a change a reader sees.
      await asUser(db, alice, `UPDATE memories SET updated_at = now() WHERE id = $1`, [id]);
      expect(await changeSeqOf(db, id)).toBe(inserted);
      // The app role may not write the column at all; the schema owner's write is overruled.
      await expect(
        asUser(db, alice, `UPDATE memories SET change_seq = 1 WHERE id = $1`, [id]),
      ).rejects.toThrow(/permission denied/);
      await db.tx.asSystem((tx) => tx.query(`UPDATE memories SET change_seq = 1 WHERE id = $1`, [id]));
      expect(await changeSeqOf(db, id)).toBe(inserted);

      const [{ xid }] = await asUser<{ xid: string }>(
        db,
        alice,
        `UPDATE memories SET importance = 0.9 WHERE id = $1 RETURNING pg_current_xact_id()::text AS xid`,
        [id],
      );
      const updated = await changeSeqOf(db, id);
      expect(updated).toBe(Number(xid));
      expect(updated).toBeGreaterThan(inserted);
      // An expiry set or lifted changes what a copy (and recall) should hold (migration 1763700000028).
      await asUser(db, alice, `UPDATE memories SET expires_at = now() + interval '1 day' WHERE id = $1`, [
        id,
      ]);
      const expiring = await changeSeqOf(db, id);
      expect(expiring).toBeGreaterThan(updated);
      await asUser(db, alice, `UPDATE memories SET deleted_at = now() WHERE id = $1`, [id]);
      const deleted = await changeSeqOf(db, id);
      expect(deleted).toBeGreaterThan(expiring);
      await asUser(db, alice, `UPDATE memories SET deleted_at = NULL WHERE id = $1`, [id]);
      expect(await changeSeqOf(db, id)).toBeGreaterThan(deleted);
    });

    it('positions system and raw-SQL writes too, and records the purge for its owner at a later position', async () => {
      const id = await db.tx.asSystem(async (tx) => {
        const { rows } = await tx.query<{ id: string }>(
          `INSERT INTO memories (tenant_id, owner_id, content, content_hash, deleted_at)
           VALUES ($1, $2, 'system write', sha256('system write'::bytea), now()) RETURNING id`,
          [alice.tenantId, alice.userId],
        );
        return Number(rows[0].id);
      });
      const seq = await changeSeqOf(db, id);
      await asUser(db, alice, `DELETE FROM memories WHERE id = $1`, [id]);
      const records = await asUser<{ xid: string; owned: boolean }>(
        db,
        alice,
        `SELECT xid, owned FROM sync_audience_changes WHERE memory_id = $1 AND user_id = $2`,
        [id, alice.userId],
      );
      expect(records).toHaveLength(1);
      expect(Number(records[0].xid)).toBeGreaterThan(seq);
      expect(records[0].owned).toBe(true);
      // memory_app can read its own sync rows but never write them.
      await expect(asUser(db, alice, `UPDATE sync_tenant_state SET epoch = 0`)).rejects.toThrow(
        /permission denied/,
      );
      await expect(
        asUser(db, alice, `DELETE FROM sync_audience_changes WHERE memory_id = $1`, [id]),
      ).rejects.toThrow(/permission denied/);
      expect(await asUser(db, bob, `SELECT 1 FROM sync_audience_changes WHERE memory_id = $1`, [id])).toEqual(
        [],
      );
    });
  });

  describe('cursor paging', () => {
    it('starts at the beginning without a cursor, pages in position order, with teammates’ team rows but not their private ones', async () => {
      const mine = [
        await insertMemory(db, alice, `page a ${Date.now()}`),
        await insertMemory(db, alice, `page b ${Date.now()}`),
      ];
      const team = await insertMemory(db, bob, `bob team ${Date.now()}`);
      await asUser(db, bob, `UPDATE memories SET visibility = 'team' WHERE id = $1`, [team]);
      const hidden = await insertMemory(db, bob, `bob private ${Date.now()}`);
      await settle(db);
      const { pages } = await all(alice);
      const seqs = pages.flatMap((p) => [...p.memories, ...p.tombstones].map((x) => x.changeSeq));
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      const ids = pages.flatMap((p) => p.memories.map((m) => m.id));
      expect(ids).toEqual(expect.arrayContaining([...mine, team]));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).not.toContain(hidden);
      expect(pages.flatMap((p) => p.tombstones)).toEqual([]);
      expect(pages.every((p) => p.memories.length + p.tombstones.length <= 2)).toBe(true);
      // Every page but the last is full and says more follows.
      expect(
        pages.slice(0, -1).every((p) => p.hasMore && p.memories.length + p.tombstones.length === 2),
      ).toBe(true);
      expect(pages.length).toBeGreaterThan(1);
    });

    it('rejects a tampered cursor and another user’s cursor with invalid_cursor', async () => {
      const { cursor } = await all(alice);
      const [body, sig] = cursor.split('.');
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as { x: number };
      const forged = Buffer.from(JSON.stringify({ ...payload, x: payload.x + 1000 })).toString('base64url');
      for (const bad of [
        `${forged}.${sig}`,
        `${body}.${sig.slice(0, -2)}AA`,
        'garbage',
        `${body}`,
        `${body}.${sig}.x`,
      ]) {
        expect(await codeOf(sync.changes.execute(alice, { cursor: bad }))).toBe(SyncErrorCode.InvalidCursor);
      }
      expect(await codeOf(sync.changes.execute(bob, { cursor }))).toBe(SyncErrorCode.InvalidCursor);
    });

    it('verifies cursors across processes sharing the database-generated key', async () => {
      const { cursor } = await all(alice);
      const other = syncUseCases(db); // a second API process: its own provider, same database
      await expect(other.changes.execute(alice, { cursor })).resolves.toMatchObject({ memories: [] });
    });

    it('answers epoch_changed after an epoch bump and full_resync_required behind the retention horizon', async () => {
      const carol = await principalIn(await createTestTenant(db));
      const doomed = await insertMemory(db, carol, `doomed ${Date.now()}`);
      const { cursor: old } = await all(carol);
      await asUser(db, carol, `UPDATE memories SET deleted_at = now() - interval '100 days' WHERE id = $1`, [
        doomed,
      ]);
      const kept = await insertMemory(db, carol, `kept ${Date.now()}`);
      const { cursor: fresh } = await all(carol);

      const result = await sync.retention.execute();
      expect(result.memories).toBeGreaterThanOrEqual(1);
      expect(await asUser(db, carol, `SELECT 1 FROM memories WHERE id = $1`, [doomed])).toEqual([]);
      // The retention run removes history without leaving a tombstone for it.
      expect(
        await db.tx.asSystem(
          async (tx) =>
            (await tx.query(`SELECT 1 FROM sync_audience_changes WHERE memory_id = $1`, [doomed])).rows,
        ),
      ).toEqual([]);
      expect(await codeOf(sync.changes.execute(carol, { cursor: old }))).toBe(
        SyncErrorCode.FullResyncRequired,
      );
      await expect(sync.changes.execute(carol, { cursor: fresh })).resolves.toMatchObject({ memories: [] });
      const restart = await all(carol);
      expect(restart.pages.flatMap((p) => p.memories.map((m) => m.id))).toEqual([kept]);

      // What an operator runs after restoring a backup.
      await db.tx.asSystem((tx) => tx.query(`SELECT sync_reset_history($1)`, [carol.tenantId]));
      expect(await codeOf(sync.changes.execute(carol, { cursor: fresh }))).toBe(SyncErrorCode.EpochChanged);
      expect(await changeSeqOf(db, kept)).toBe(0);
      const reseeded = await all(carol);
      expect(reseeded.pages.flatMap((p) => p.memories.map((m) => m.id))).toEqual([kept]);
      const later = await insertMemory(db, carol, `after the reset ${Date.now()}`);
      await settle(db);
      expect((await all(carol, reseeded.cursor)).pages.flatMap((p) => p.memories.map((m) => m.id))).toEqual([
        later,
      ]);
    });

    it('ages tombstones out after the horizon and raises the tenant’s min_valid_seq past them', async () => {
      const dave = await principalIn(await createTestTenant(db));
      const id = await insertMemory(db, dave, `tomb ${Date.now()}`);
      await asUser(db, dave, `UPDATE memories SET deleted_at = now() WHERE id = $1`, [id]);
      await settle(db);
      const { cursor: before } = await all(dave);
      await asUser(db, dave, `DELETE FROM memories WHERE id = $1`, [id]);
      await settle(db);
      const { page, cursor: after } = await all(dave, before);
      expect(page.tombstones.map((t) => t.id)).toEqual([id]);
      await db.tx.asSystem((tx) =>
        tx.query(
          `UPDATE sync_audience_changes SET changed_at = now() - interval '91 days' WHERE memory_id = $1`,
          [id],
        ),
      );
      expect((await sync.retention.execute()).tombstones).toBeGreaterThanOrEqual(1);
      expect(await codeOf(sync.changes.execute(dave, { cursor: before }))).toBe(
        SyncErrorCode.FullResyncRequired,
      );
      // A cursor that had already seen the tombstone needs nothing that was removed.
      await expect(sync.changes.execute(dave, { cursor: after })).resolves.toMatchObject({ tombstones: [] });
    });

    it('answers epoch_changed for a cursor of the previous per-user numbering, and invalid_cursor across key reach', async () => {
      const { cursor } = await all(alice);
      // A genuine cursor of the old format: signed with the installation's key, no version.
      const key = await db.tx.asSystem(
        async (tx) =>
          (
            await tx.query<{ value: Buffer }>(
              `SELECT value FROM server_secrets WHERE name = 'sync_cursor_hmac'`,
            )
          ).rows[0].value,
      );
      const legacyBody = Buffer.from(JSON.stringify({ u: alice.userId, s: 3, e: 1 })).toString('base64url');
      const signature = createHmac('sha256', key).update(legacyBody).digest('base64url');
      expect(await codeOf(sync.changes.execute(alice, { cursor: `${legacyBody}.${signature}` }))).toBe(
        SyncErrorCode.EpochChanged,
      );
      expect(await codeOf(sync.changes.execute(asAdmin(alice), { cursor }))).toBe(
        SyncErrorCode.InvalidCursor,
      );
    });
  });

  describe('seed contract', () => {
    it('streams the complete live set with a usable cursor and the server time', async () => {
      const erin = await principalIn(await createTestTenant(db));
      const live = await insertMemory(db, erin, `live ${Date.now()}`);
      const gone = await insertMemory(db, erin, `gone ${Date.now()}`);
      await asUser(
        db,
        erin,
        `UPDATE memories SET deleted_at = now(), expanded_keywords = 'kw' WHERE id = $1`,
        [gone],
      );
      const body = await readJson<SeedBody>(await sync.seed.execute(erin, {}));
      expect(body.memories.map((m) => m.id)).toEqual([live]);
      expect(body.memories[0]).toHaveProperty('expanded_keywords');
      expect(body.server_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
      const next = await sync.changes.execute(erin, { cursor: body.next_cursor });
      expect(next.memories).toEqual([]);
    });

    it('returns rows changed since a time, deleted ones included, and parses the edge cases', async () => {
      const frank = await principalIn(await createTestTenant(db));
      const oldId = await insertMemory(db, frank, `old ${Date.now()}`);
      await db.tx.asSystem((tx) =>
        tx.query(
          `UPDATE memories SET updated_at = '2020-01-01T00:00:00Z', created_at = '2020-01-01T00:00:00Z' WHERE id = $1`,
          [oldId],
        ),
      );
      const newId = await insertMemory(db, frank, `new ${Date.now()}`);
      const deleted = await insertMemory(db, frank, `deleted ${Date.now()}`);
      await asUser(db, frank, `UPDATE memories SET deleted_at = now() WHERE id = $1`, [deleted]);
      const idsSince = async (since: string) =>
        (await readJson<SeedBody>(await sync.seed.execute(frank, { since }))).memories
          .map((m) => m.id)
          .sort();

      const expected = [newId, deleted].sort();
      expect(await idsSince('2021-06-01T00:00:00Z')).toEqual(expected);
      expect(await idsSince('2021-06-01T00:00:00')).toEqual(expected); // no timezone: UTC
      expect(await idsSince('2021-06-01T02:00:00 02:00')).toEqual(expected); // '+' arrived as a space
      expect(await idsSince('2019-12-31')).toEqual([oldId, ...expected].sort());
      expect(await idsSince('9999-01-01T00:00:00Z')).toEqual([]);
      // The overlap (1 s here) reaches back just before the boundary: 2020-01-01T00:00:00.5 still matches.
      expect(await idsSince('2020-01-01T00:00:00.500000+00:00')).toContain(oldId);
      expect(await idsSince('2020-01-01T00:00:01.500000+00:00')).not.toContain(oldId);
      const withDeleted = await readJson<SeedBody>(await sync.seed.execute(frank, { since: '2021-01-01' }));
      expect(withDeleted.memories.find((m) => m.id === deleted)?.deleted_at).toMatch(/^\d{4}-/);
      for (const garbage of ['yesterday', '2021-02-30', '1700000000', '']) {
        expect(await codeOf(sync.seed.execute(frank, { since: garbage }))).toBe(SyncErrorCode.InvalidSince);
      }
    });
  });
});
