import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  CreateMemoryLinkUseCase,
  CreateMemoryUseCase,
  DeleteMemoryLinkUseCase,
  GetMemoryLinksUseCase,
  GetMemoryUseCase,
  type LinkType,
  type NewMemory,
} from '@app/memories';
import { MemoryLinkRepository, MemoryLinkWriter, MemoryReadRepository } from '@app/memories/testing';
import { ALL_SCOPES, AuditWriter, type Principal } from '@app/tenancy';
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
const note = (overrides: Partial<NewMemory> = {}) => newMemory(`link note ${++seq} ${Date.now()}`, overrides);

describe('memory links: who may link what', () => {
  let db: TestDatabase;
  let alice: Principal;
  let bob: Principal;
  let admin: Principal;
  let dave: Principal;
  let create: CreateMemoryUseCase;
  let link: CreateMemoryLinkUseCase;
  let unlink: DeleteMemoryLinkUseCase;
  let linksOf: GetMemoryLinksUseCase;
  let getMemory: GetMemoryUseCase;

  const store = async (who: Principal, overrides: Partial<NewMemory> = {}) =>
    (await create.execute(who, note(overrides))).id;
  const edge = (srcId: number, dstId: number, linkType: LinkType = 'see-also') => ({
    srcId,
    dstId,
    linkType,
  });
  const share = (owner: Principal, memoryId: number, withUser: Principal, permission: 'read' | 'write') =>
    db.tx.inTenant(owner, (tx) =>
      tx.query(
        `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission) VALUES ($1, $2, $3, $4, $5)`,
        [memoryId, owner.userId, withUser.userId, owner.tenantId, permission],
      ),
    );

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const tenant = await createTestTenant(db, 'links');
    alice = await memberPrincipal(tenant, 'alice');
    bob = await memberPrincipal(tenant, 'bob');
    // An admin granted private access, in a tenant that allows it: it may change every memory.
    admin = { ...(await memberPrincipal(tenant, 'boss')), scopes: ALL_SCOPES, privateAccess: true };
    await tenant.allowAdminPrivateAccess();
    dave = await memberPrincipal(await createTestTenant(db, 'links-other'), 'dave');
    const writer = await memoryWriterFor(db.tx, limits, undefined, { defaultVisibility: 'team' });
    create = new CreateMemoryUseCase(writer);
    const links = new MemoryLinkRepository();
    const linkWriter = new MemoryLinkWriter(links, new AuditWriter());
    link = new CreateMemoryLinkUseCase(db.tx, linkWriter);
    unlink = new DeleteMemoryLinkUseCase(db.tx, linkWriter);
    linksOf = new GetMemoryLinksUseCase(db.tx, links);
    getMemory = new GetMemoryUseCase(db.tx, new MemoryReadRepository());
  });
  afterAll(async () => db?.close());

  it('links two memories and shows the link from both ends', async () => {
    const [a, b] = [await store(alice), await store(alice)];
    const made = await link.execute(alice, edge(a, b, 'part-of'));
    expect(made).toEqual({
      id: expect.any(Number),
      srcId: a,
      dstId: b,
      linkType: 'part-of',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*\+00:00$/),
    });
    expect(await linksOf.execute(alice, a)).toEqual({ out: [made], in: [] });
    expect(await linksOf.execute(alice, b)).toEqual({ out: [], in: [made] });
    // Reading the memory brings the same links in the same statement.
    expect((await getMemory.withLinks(alice, a)).links).toEqual({ out: [made], in: [] });
    expect((await getMemory.withLinks(alice, b)).links).toEqual({ out: [], in: [made] });
    const audit = await db.tx.asSystem((tx) =>
      tx.query(
        `SELECT action FROM audit_log WHERE tenant_id = $1 AND target_id = $2 AND action = 'memory.link'`,
        [alice.tenantId, String(a)],
      ),
    );
    expect(audit.rows).toHaveLength(1);
  });

  it('refuses a self-link, a duplicate and a supersedes cycle', async () => {
    const [a, b, c] = [await store(alice), await store(alice), await store(alice)];
    await expect(link.execute(alice, edge(a, a))).rejects.toMatchObject({
      code: 'link_to_self',
      kind: 'invalid',
    });
    await link.execute(alice, edge(a, b));
    await expect(link.execute(alice, edge(a, b))).rejects.toMatchObject({
      code: 'link_exists',
      kind: 'conflict',
    });
    // Another type between the same two is another link.
    await link.execute(alice, edge(a, b, 'resolved-by'));
    await link.execute(alice, edge(c, b, 'supersedes'));
    await link.execute(alice, edge(b, a, 'supersedes'));
    await expect(link.execute(alice, edge(a, c, 'supersedes'))).rejects.toMatchObject({
      code: 'supersedes_cycle',
      kind: 'invalid',
    });
    // see-also edges may go both ways.
    await link.execute(alice, edge(b, a, 'see-also'));
  });

  it('counts links through memories the caller cannot see when refusing a cycle', async () => {
    const [b1, b2] = [await store(bob), await store(bob)];
    const hidden = await store(alice, { visibility: 'private' });
    await link.execute(admin, edge(b1, hidden, 'supersedes'));
    await link.execute(alice, edge(hidden, b2, 'supersedes'));
    await expect(link.execute(bob, edge(b2, b1, 'supersedes'))).rejects.toMatchObject({
      code: 'supersedes_cycle',
    });
    // Bob sees neither link: each has an end he cannot see.
    expect(await linksOf.execute(bob, b1)).toEqual({ out: [], in: [] });
    expect((await getMemory.withLinks(bob, b1)).links).toEqual({ out: [], in: [] });
  });

  it('answers 404 for a memory the caller cannot see and 403 for one they may not change', async () => {
    const teamOfAlice = await store(alice);
    const privateOfAlice = await store(alice, { visibility: 'private' });
    const ofBob = await store(bob);
    await expect(link.execute(bob, edge(ofBob, privateOfAlice))).rejects.toMatchObject({
      code: 'memory_not_found',
      message: `Memory ${privateOfAlice} not found`,
    });
    await expect(link.execute(bob, edge(privateOfAlice, ofBob))).rejects.toMatchObject({
      code: 'memory_not_found',
    });
    await expect(link.execute(bob, edge(ofBob, 9_999_999_999))).rejects.toMatchObject({
      code: 'memory_not_found',
    });
    await expect(link.execute(bob, edge(teamOfAlice, ofBob))).rejects.toMatchObject({
      code: 'forbidden',
      kind: 'forbidden',
    });
    // Linking *to* a visible memory needs no more than seeing it.
    await link.execute(bob, edge(ofBob, teamOfAlice));
    // An admin changes every memory of the tenant.
    await link.execute(admin, edge(teamOfAlice, ofBob));
  });

  it('lets a user with a write share link from the memory, not one with a read share', async () => {
    const shared = await store(alice, { visibility: 'private' });
    const readOnly = await store(alice, { visibility: 'private' });
    const ofBob = await store(bob);
    await share(alice, shared, bob, 'write');
    await share(alice, readOnly, bob, 'read');
    await link.execute(bob, edge(shared, ofBob, 'resolved-by'));
    await expect(link.execute(bob, edge(readOnly, ofBob))).rejects.toMatchObject({ code: 'forbidden' });
    // The read share makes the memory a valid target.
    await link.execute(bob, edge(ofBob, readOnly));
  });

  it('removes a link for whoever may change its source, 404 when absent, 403 for a reader', async () => {
    const [a, b] = [await store(alice), await store(alice)];
    const made = await link.execute(alice, edge(a, b, 'supersedes'));
    await expect(unlink.execute(bob, edge(a, b, 'supersedes'))).rejects.toMatchObject({ code: 'forbidden' });
    await expect(unlink.execute(dave, edge(a, b, 'supersedes'))).rejects.toMatchObject({
      code: 'memory_not_found',
    });
    await expect(unlink.execute(alice, edge(a, b, 'see-also'))).rejects.toMatchObject({
      code: 'link_not_found',
      kind: 'not_found',
    });
    expect(await unlink.execute(alice, edge(a, b, 'supersedes'))).toEqual(made);
    await expect(unlink.execute(alice, edge(a, b, 'supersedes'))).rejects.toMatchObject({
      code: 'link_not_found',
    });
    expect(await linksOf.execute(alice, a)).toEqual({ out: [], in: [] });
  });

  it('shows another tenant nothing and lets it link nothing', async () => {
    const [a, b] = [await store(alice), await store(alice)];
    await link.execute(alice, edge(a, b));
    const ofDave = await store(dave);
    expect(await linksOf.execute(dave, a)).toEqual({ out: [], in: [] });
    await expect(link.execute(dave, edge(ofDave, a))).rejects.toMatchObject({ code: 'memory_not_found' });
    await expect(link.execute(dave, edge(a, ofDave))).rejects.toMatchObject({ code: 'memory_not_found' });
  });

  it('hides links to a deleted memory until it is restored', async () => {
    const [a, b] = [await store(alice), await store(alice)];
    await link.execute(alice, edge(a, b));
    await db.tx.inTenant(alice, (tx) =>
      tx.query(`UPDATE memories SET deleted_at = now() WHERE id = $1`, [b]),
    );
    expect(await linksOf.execute(alice, a)).toEqual({ out: [], in: [] });
    await expect(link.execute(alice, edge(a, b, 'part-of'))).rejects.toMatchObject({
      code: 'memory_not_found',
    });
    await db.tx.inTenant(alice, (tx) => tx.query(`UPDATE memories SET deleted_at = NULL WHERE id = $1`, [b]));
    expect((await linksOf.execute(alice, a)).out).toHaveLength(1);
  });

  describe('storing a memory that supersedes another', () => {
    it('stores the memory and the link in one transaction', async () => {
      const old = await store(alice);
      const { id } = await create.execute(alice, note({ supersedes: old }));
      expect((await linksOf.execute(alice, id)).out).toEqual([
        expect.objectContaining({ srcId: id, dstId: old, linkType: 'supersedes' }),
      ]);
    });

    it('still links when identical content answers the existing id', async () => {
      const old = await store(alice);
      const content = `the correction ${Date.now()}`;
      const first = await create.execute(alice, newMemory(content));
      const again = await create.execute(alice, newMemory(content, { supersedes: old }));
      expect(again.id).toBe(first.id);
      expect((await linksOf.execute(alice, old)).in).toEqual([
        expect.objectContaining({ srcId: first.id, linkType: 'supersedes' }),
      ]);
      // Once more: the link is there already, nothing changes.
      await create.execute(alice, newMemory(content, { supersedes: old }));
      expect((await linksOf.execute(alice, old)).in).toHaveLength(1);
    });

    it('stores nothing when the superseded memory is invisible (404), not changeable (403) or a cycle', async () => {
      const privateOfAlice = await store(alice, { visibility: 'private' });
      // Shared to read, not the team's: a correction is refused (a team memory's is a proposal).
      const lentByAlice = await store(alice, { visibility: 'private' });
      await share(alice, lentByAlice, bob, 'read');
      const count = () =>
        db.tx
          .inTenant(bob, (tx) =>
            tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM memories WHERE owner_id = $1`, [
              bob.userId,
            ]),
          )
          .then((r) => r.rows[0].n);
      const before = await count();
      await expect(create.execute(bob, note({ supersedes: privateOfAlice }))).rejects.toMatchObject({
        code: 'memory_not_found',
      });
      await expect(create.execute(bob, note({ supersedes: lentByAlice }))).rejects.toMatchObject({
        code: 'forbidden',
      });
      const oldContent = `the old way ${Date.now()}`;
      const old = await create.execute(bob, newMemory(oldContent));
      const newer = await create.execute(bob, note({ supersedes: old.id }));
      // Identical content answers the existing id: the old text as a successor of the newer one
      // would close a cycle, and a memory as its own successor is a self-link.
      await expect(
        create.execute(bob, newMemory(oldContent, { supersedes: newer.id })),
      ).rejects.toMatchObject({
        code: 'supersedes_cycle',
      });
      await expect(create.execute(bob, newMemory(oldContent, { supersedes: old.id }))).rejects.toMatchObject({
        code: 'link_to_self',
      });
      expect(await count()).toBe(before + 2);
    });
  });
});
