import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  CreateMemoryLinkUseCase,
  CreateMemoryUseCase,
  SUPERSEDES_MAX_DEPTH,
  supersedingHeadsSql,
  type NewMemory,
} from '@app/memories';
import { MemoryLinkRepository, MemoryLinkWriter } from '@app/memories/testing';
import { AuditWriter, type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWriterFor } from '../../../test/support/memory-writes';

const limits = { maxContentBytes: 4096, maxImportBatch: 100, maxListLimit: 100 };
let seq = 0;

describe('memory links: what each reader sees (row-level security and the supersedes walk)', () => {
  let db: TestDatabase;
  let alice: Principal;
  let bob: Principal;
  let dave: Principal;
  let create: CreateMemoryUseCase;
  let link: CreateMemoryLinkUseCase;
  const links = new MemoryLinkRepository();

  const store = async (who: Principal, overrides: Partial<NewMemory> = {}) =>
    (await create.execute(who, newMemory(`visibility note ${++seq} ${Date.now()}`, overrides))).id;
  const supersede = (who: Principal, newer: number, older: number) =>
    link.execute(who, { srcId: newer, dstId: older, linkType: 'supersedes' });
  /** The supersedes walk recall runs: for each id, the head of its chain the caller can see. */
  const heads = async (who: Principal, ids: number[]) => {
    const walk = supersedingHeadsSql({
      starts: 'SELECT unnest($1::bigint[])',
      tenant: '$2',
      user: '$3',
      depth: String(SUPERSEDES_MAX_DEPTH),
    });
    const { rows } = await db.tx.inTenant(who, (tx) =>
      tx.query<{ start_id: string; head_id: string }>(
        `WITH RECURSIVE ${walk} SELECT start_id, head_id FROM heads`,
        [ids, who.tenantId, who.userId],
      ),
    );
    return new Map(rows.map((r) => [Number(r.start_id), Number(r.head_id)]));
  };
  /** Raw SQL as the application role: only row-level security stands between the caller and the rows. */
  const raw = (who: Principal, sql: string, params: unknown[]) =>
    db.tx.inTenant(who, (tx) => tx.query<{ id: string }>(sql, params));

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const tenant = await createTestTenant(db, 'link-rls');
    alice = await memberPrincipal(tenant, 'alice');
    bob = await memberPrincipal(tenant, 'bob');
    dave = await memberPrincipal(await createTestTenant(db, 'link-rls-other'), 'dave');
    const writer = await memoryWriterFor(db.tx, limits, undefined, { defaultVisibility: 'team' });
    create = new CreateMemoryUseCase(writer);
    link = new CreateMemoryLinkUseCase(db.tx, new MemoryLinkWriter(links, new AuditWriter()));
  });
  afterAll(async () => db?.close());

  describe('row-level security as memory_app', () => {
    it('shows a link only to users who see both of its memories, and never to another tenant', async () => {
      const team = await store(alice);
      const secret = await store(alice, { visibility: 'private' });
      const otherTeam = await store(alice);
      const toSecret = await link.execute(alice, { srcId: team, dstId: secret, linkType: 'see-also' });
      const teamOnly = await link.execute(alice, { srcId: team, dstId: otherTeam, linkType: 'see-also' });
      const select = `SELECT id FROM memory_links WHERE src_id = $1 ORDER BY id`;
      expect((await raw(alice, select, [team])).rows.map((r) => Number(r.id))).toEqual([
        toSecret.id,
        teamOnly.id,
      ]);
      expect((await raw(bob, select, [team])).rows.map((r) => Number(r.id))).toEqual([teamOnly.id]);
      expect((await raw(dave, `SELECT id FROM memory_links`, [])).rows).toEqual([]);
      // Nor can they remove what they cannot see.
      expect((await raw(bob, `DELETE FROM memory_links WHERE id = $1`, [toSecret.id])).rowCount).toBe(0);
      expect((await raw(dave, `DELETE FROM memory_links WHERE id = $1`, [teamOnly.id])).rowCount).toBe(0);
      expect((await raw(alice, select, [team])).rows).toHaveLength(2);
    });

    it('refuses a raw insert pointing at a memory the caller cannot see, or into another tenant', async () => {
      const ofBob = await store(bob);
      const secret = await store(alice, { visibility: 'private' });
      const insert = `INSERT INTO memory_links (tenant_id, src_id, dst_id, link_type, created_by) VALUES ($1, $2, $3, 'see-also', $4)`;
      await expect(raw(bob, insert, [bob.tenantId, ofBob, secret, bob.userId])).rejects.toMatchObject({
        code: '42501',
      });
      const ofDave = await store(dave);
      await expect(raw(dave, insert, [dave.tenantId, ofDave, ofBob, dave.userId])).rejects.toMatchObject({
        code: '42501',
      });
      await expect(raw(dave, insert, [bob.tenantId, ofDave, ofBob, dave.userId])).rejects.toMatchObject({
        code: '42501',
      });
    });
  });

  describe('the supersedes walk', () => {
    it('follows a chain to its newest version, at the newest of several successors', async () => {
      const [v1, v2, v3] = [await store(alice), await store(alice), await store(alice)];
      await supersede(alice, v2, v1);
      await supersede(alice, v3, v2);
      expect(await heads(alice, [v1, v2, v3])).toEqual(
        new Map([
          [v1, v3],
          [v2, v3],
        ]),
      );
      const fork = await store(alice);
      await supersede(alice, fork, v1);
      expect((await heads(alice, [v1])).get(v1)).toBe(fork);
    });

    it('stops before a successor the caller cannot see, or one that was deleted', async () => {
      const old = await store(alice);
      const mine = await store(alice, { visibility: 'private' });
      await supersede(alice, mine, old);
      expect((await heads(alice, [old])).get(old)).toBe(mine);
      expect(await heads(bob, [old])).toEqual(new Map());
      expect(await heads(dave, [old])).toEqual(new Map());
      await raw(alice, `UPDATE memories SET deleted_at = now() WHERE id = $1`, [mine]);
      expect(await heads(alice, [old])).toEqual(new Map());
    });

    it('goes at most ten hops', async () => {
      const chain: number[] = [];
      for (let i = 0; i < 13; i++) chain.push(await store(alice));
      for (let i = 1; i < chain.length; i++) await supersede(alice, chain[i], chain[i - 1]);
      const found = await heads(alice, [chain[0], chain[5]]);
      expect(found.get(chain[0])).toBe(chain[10]);
      expect(found.get(chain[5])).toBe(chain[12]);
    });

    it('ends on a cycle the link rules never made (rows written directly)', async () => {
      const [x, y] = [await store(alice), await store(alice)];
      await db.tx.asSystem((tx) =>
        tx.query(
          `INSERT INTO memory_links (tenant_id, src_id, dst_id, link_type, created_by)
           VALUES ($1, $2, $3, 'supersedes', $4), ($1, $3, $2, 'supersedes', $4)`,
          [alice.tenantId, x, y, alice.userId],
        ),
      );
      expect(await heads(alice, [x, y])).toEqual(
        new Map([
          [x, y],
          [y, x],
        ]),
      );
    });
  });
});
