import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { UserDataRepository } from '@app/memories/testing';
import { SyncError, SyncErrorCode } from '@app/sync';
import { type Principal } from '@app/tenancy';
import { allowAdminPrivateAccess, createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';
import {
  asAdmin,
  asUser,
  insertMemory,
  principalIn,
  readJson,
  share,
  shareTag,
  SyncFollower,
  syncUseCases,
  unshare,
  unshareTag,
} from './sync-harness';

/**
 * The cursor feed follows what each user can see: own memories, the tenant's team memories, and
 * memories shared directly or by tag; admin keys the whole tenant. Each test has its own tenant,
 * plus a user of another tenant who must never hear of any of it.
 */
describe('sync of what a user can see (real Postgres)', () => {
  let db: TestDatabase;
  let sync: ReturnType<typeof syncUseCases>;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 6);
    sync = syncUseCases(db);
  });
  afterAll(async () => db.close());

  async function team() {
    const tenant = await createTestTenant(db);
    const [alice, bob, carol] = await Promise.all(
      ['alice', 'bob', 'carol'].map((n) => principalIn(tenant, n)),
    );
    const stranger = await principalIn(await createTestTenant(db), 'alice');
    const follow = (who: Principal) => new SyncFollower(db, sync, who);
    return { alice, bob, carol, stranger, follow };
  }
  const setContent = (who: Principal, id: number, content: string) =>
    asUser(db, who, `UPDATE memories SET content = $2 WHERE id = $1`, [id, content]);
  const purge = (who: Principal, id: number) => asUser(db, who, `DELETE FROM memories WHERE id = $1`, [id]);
  const codeOf = (work: Promise<unknown>) =>
    work.then(
      () => 'no error',
      (error: unknown) => (error instanceof SyncError ? error.code : Promise.reject(error)),
    );

  it("brings a teammate's team memory into bob's feed, and a tombstone once it is made private", async () => {
    const { alice, bob, stranger, follow } = await team();
    const [bobs, alices, strangers] = [follow(bob), follow(alice), follow(stranger)];
    await Promise.all([bobs.pull(), alices.pull(), strangers.pull()]);

    const id = await insertMemory(db, alice, `team note ${Date.now()}`, { visibility: 'team' });
    expect(await bobs.pull()).toEqual({ rows: [id], tombstones: [] });
    expect(bobs.copy.get(id)).toMatchObject({ owner: 'alice', visibility: 'team' });
    await setContent(alice, id, 'team note, edited');
    expect(await bobs.pull()).toEqual({ rows: [id], tombstones: [] });
    expect(bobs.copy.get(id)?.content).toBe('team note, edited');

    await asUser(db, alice, `UPDATE memories SET visibility = 'private' WHERE id = $1`, [id]);
    expect(await bobs.pull()).toEqual({ rows: [], tombstones: [id] });
    expect(bobs.copy.has(id)).toBe(false);
    await alices.pull();
    expect(alices.copy.get(id)).toMatchObject({ visibility: 'private', content: 'team note, edited' });

    await strangers.pull();
    expect(strangers.named).toEqual(new Set());
  });

  it('brings a privately shared memory in although its row did not change, and a tombstone on unshare', async () => {
    const { alice, bob, carol, stranger, follow } = await team();
    const [bobs, carols, strangers] = [follow(bob), follow(carol), follow(stranger)];
    const id = await insertMemory(db, alice, `private ${Date.now()}`);
    await Promise.all([bobs.pull(), carols.pull(), strangers.pull()]);
    expect(bobs.named.has(id)).toBe(false);

    await share(db, alice, id, bob);
    expect(await bobs.pull()).toEqual({ rows: [id], tombstones: [] });
    await setContent(alice, id, 'private, edited');
    await bobs.pull();
    expect(bobs.copy.get(id)?.content).toBe('private, edited');

    await unshare(db, alice, id, bob);
    expect(await bobs.pull()).toEqual({ rows: [], tombstones: [id] });
    await Promise.all([carols.pull(), strangers.pull()]);
    expect(carols.named.has(id)).toBe(false);
    expect(strangers.named).toEqual(new Set());
  });

  it('follows a tag rule: current and future tagged memories come, retagged ones go, and the rule’s removal sends tombstones', async () => {
    const { alice, bob, carol, follow } = await team();
    const [carols, bobs] = [follow(carol), follow(bob)];
    const ops = await insertMemory(db, alice, `ops 1 ${Date.now()}`, { tags: ['ops'] });
    const dev = await insertMemory(db, alice, `dev 1 ${Date.now()}`, { tags: ['dev'] });
    await Promise.all([carols.pull(), bobs.pull()]);

    await shareTag(db, alice, 'ops', carol);
    expect(await carols.pull()).toEqual({ rows: [ops], tombstones: [] });
    const later = await insertMemory(db, alice, `ops 2 ${Date.now()}`, { tags: ['x', 'ops'] });
    expect(await carols.pull()).toEqual({ rows: [later], tombstones: [] });

    await asUser(db, alice, `UPDATE memories SET tags = '{ops}' WHERE id = $1`, [dev]);
    expect(await carols.pull()).toEqual({ rows: [dev], tombstones: [] });
    await asUser(db, alice, `UPDATE memories SET tags = '{dev}' WHERE id = $1`, [ops]);
    expect(await carols.pull()).toEqual({ rows: [], tombstones: [ops] });

    await unshareTag(db, alice, 'ops', carol);
    const gone = await carols.pull();
    expect(gone.rows).toEqual([]);
    expect(gone.tombstones.sort()).toEqual([dev, later].sort());
    expect(carols.copy.size).toBe(0);
    await bobs.pull();
    expect(bobs.named).toEqual(new Set());
  });

  it('sends a purge’s tombstone to everyone who could see the memory, and to nobody else', async () => {
    const { alice, bob, carol, stranger, follow } = await team();
    const [bobs, carols, strangers] = [follow(bob), follow(carol), follow(stranger)];
    const teamId = await insertMemory(db, alice, `team ${Date.now()}`, { visibility: 'team' });
    const shared = await insertMemory(db, alice, `shared ${Date.now()}`);
    const unshared = await insertMemory(db, alice, `unshared ${Date.now()}`);
    await share(db, alice, shared, bob);
    await Promise.all([bobs.pull(), carols.pull(), strangers.pull()]);

    for (const id of [teamId, shared, unshared]) await purge(alice, id);
    expect((await bobs.pull()).tombstones.sort()).toEqual([teamId, shared].sort());
    expect(await carols.pull()).toEqual({ rows: [], tombstones: [teamId] });
    // carol never could see the other two, so the feed never names them to her.
    expect(carols.named).toEqual(new Set([teamId]));
    await strangers.pull();
    expect(strangers.named).toEqual(new Set());
  });

  it('gives an admin key the whole tenant, purges of private memories included; a member key may not reuse its cursor', async () => {
    const { alice, bob, follow } = await team();
    await allowAdminPrivateAccess(db, alice.tenantId);
    const admin = asAdmin(bob);
    const admins = follow(admin);
    const secret = await insertMemory(db, alice, `alice only ${Date.now()}`);
    expect((await admins.pull()).rows).toEqual([secret]);
    await purge(alice, secret);
    expect(await admins.pull()).toEqual({ rows: [], tombstones: [secret] });
    expect(await codeOf(sync.changes.execute(bob, { cursor: admins.cursor }))).toBe(
      SyncErrorCode.InvalidCursor,
    );
  });

  it('continues a seed dump (own rows only) with the team and shared memories, without repeating own rows', async () => {
    const { alice, bob, follow } = await team();
    const own = await insertMemory(db, bob, `bob's ${Date.now()}`);
    const teamId = await insertMemory(db, alice, `alice team ${Date.now()}`, { visibility: 'team' });
    const shared = await insertMemory(db, alice, `alice shared ${Date.now()}`);
    await share(db, alice, shared, bob);

    const seed = await readJson<{ next_cursor: string; memories: Array<{ id: number }> }>(
      await sync.seed.execute(bob, {}),
    );
    expect(seed.memories.map((m) => m.id)).toEqual([own]);
    const bobs = follow(bob);
    bobs.cursor = seed.next_cursor;
    expect((await bobs.pull()).rows.sort()).toEqual([teamId, shared].sort());
  });

  it('keeps ?since= owner-scoped: own rows and own purges, never a teammate’s row or a revoked share', async () => {
    const { alice, bob } = await team();
    const since = new Date(Date.now() - 60_000).toISOString();
    const own = await insertMemory(db, bob, `bob's ${Date.now()}`);
    const purged = await insertMemory(db, bob, `bob's purged ${Date.now()}`);
    await purge(bob, purged);
    await insertMemory(db, alice, `alice team ${Date.now()}`, { visibility: 'team' });
    const unshared = await insertMemory(db, alice, `alice shared ${Date.now()}`);
    await share(db, alice, unshared, bob);
    await unshare(db, alice, unshared, bob);

    const body = await readJson<{ memories: Array<{ id: number }>; tombstones: Array<{ id: number }> }>(
      await sync.seed.execute(bob, { since }),
    );
    expect(body.memories.map((m) => m.id)).toEqual([own]);
    expect(body.tombstones.map((t) => t.id)).toEqual([purged]);
  });

  it("sends tombstones of an erased user's memories to teammates and sends the erased user back to re-seed", async () => {
    const { alice, bob, follow } = await team();
    const [bobs, alices] = [follow(bob), follow(alice)];
    const teamId = await insertMemory(db, alice, `team ${Date.now()}`, { visibility: 'team' });
    await Promise.all([bobs.pull(), alices.pull()]);

    await db.tx.asSystem((tx) => new UserDataRepository().erase(tx, alice));
    const history = await db.tx.asSystem(
      async (tx) =>
        (await tx.query(`SELECT 1 FROM sync_audience_changes WHERE user_id = $1`, [alice.userId])).rows,
    );
    expect(history).toEqual([]);
    expect(await bobs.pull()).toEqual({ rows: [], tombstones: [teamId] });
    expect(await codeOf(sync.changes.execute(alice, { cursor: alices.cursor }))).toBe(
      SyncErrorCode.FullResyncRequired,
    );
    await expect(sync.changes.execute(alice, {})).resolves.toMatchObject({ memories: [], tombstones: [] });
  });

  it('lets users and whole tenants be deleted with their shares, rules and history; teammates still hear of it', async () => {
    const { alice, bob, carol, follow } = await team();
    const carols = follow(carol);
    const tagged = await insertMemory(db, alice, `tagged ${Date.now()}`, { tags: ['ops'] });
    const teamId = await insertMemory(db, alice, `team ${Date.now()}`, { visibility: 'team' });
    await share(db, alice, tagged, bob);
    await shareTag(db, alice, 'ops', carol);
    expect((await carols.pull()).rows.sort()).toEqual([tagged, teamId].sort());

    const system = (sql: string, params: unknown[]) => db.tx.asSystem((tx) => tx.query(sql, params));
    await system(`DELETE FROM users WHERE id = $1`, [bob.userId]);
    await system(`DELETE FROM users WHERE id = $1`, [alice.userId]);
    expect((await carols.pull()).tombstones.sort()).toEqual([tagged, teamId].sort());

    await system(`DELETE FROM tenants WHERE id = $1`, [alice.tenantId]);
    const left = await db.tx.asSystem(
      async (tx) =>
        (
          await tx.query(
            `SELECT (SELECT count(*) FROM sync_audience_changes WHERE tenant_id = $1)
                  + (SELECT count(*) FROM sync_tenant_state WHERE tenant_id = $1)
                  + (SELECT count(*) FROM sync_state WHERE tenant_id = $1) AS n`,
            [alice.tenantId],
          )
        ).rows[0] as { n: string },
    );
    expect(Number(left.n)).toBe(0);
  });
});
