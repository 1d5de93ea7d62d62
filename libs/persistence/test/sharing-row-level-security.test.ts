import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { TenantScope } from '@app/persistence';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';

/**
 * The sharing rules as the database enforces them, for the application role with no application
 * filter: private memories are read by their owner, the users they are shared with (directly or by
 * a tag rule) and admins; `write` shares may update, nobody but the owner (or an admin) deletes.
 */
describe('row-level security for shares', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'));
  });
  afterAll(async () => db.close());

  const hash = (text: string) => createHash('sha256').update(text).digest();

  async function privateMemory(owner: TenantScope, content: string, tags: string[] = []): Promise<string> {
    return db.tx.inTenant(owner, async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash, tags, visibility)
         VALUES ($1, $2, $3, $4, $5, 'private') RETURNING id`,
        [owner.tenantId, owner.userId, content, hash(content), tags],
      );
      return rows[0].id;
    });
  }

  const as = (scope: TenantScope, sql: string, params: unknown[]) =>
    db.tx.inTenant(scope, (tx) => tx.query<Record<string, unknown>>(sql, params));

  it('shows a private memory to the users it is shared with, and lets only write shares update it', async () => {
    const tenant = await createTestTenant(db);
    const alice = await tenant.addUser('alice');
    const bob = await tenant.addUser('bob');
    const carol = await tenant.addUser('carol');
    const erin = await tenant.addUser('erin');
    const id = await privateMemory(alice, 'the deploy key rotates monthly');
    const read = (who: TenantScope) => as(who, `SELECT content FROM memories WHERE id = $1`, [id]);

    expect((await read(bob)).rows).toHaveLength(0);
    await as(
      alice,
      `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission)
       VALUES ($1, $2, $3, $4, 'write'), ($1, $2, $5, $4, 'read')`,
      [id, alice.userId, bob.userId, alice.tenantId, carol.userId],
    );
    expect((await read(bob)).rows).toEqual([{ content: 'the deploy key rotates monthly' }]);
    expect((await read(carol)).rows).toHaveLength(1);
    expect((await read(erin)).rows).toHaveLength(0);

    const update = (who: TenantScope) =>
      as(who, `UPDATE memories SET importance = 0.9 WHERE id = $1`, [id]).then((r) => r.rowCount);
    expect(await update(bob)).toBe(1);
    expect(await update(carol)).toBe(0);
    expect(await update(erin)).toBe(0);
    expect((await as(bob, `DELETE FROM memories WHERE id = $1`, [id])).rowCount).toBe(0);

    // The recipient can neither take the memory over nor hand out shares of it.
    await expect(
      as(bob, `UPDATE memories SET owner_id = $2 WHERE id = $1`, [id, bob.userId]),
    ).rejects.toThrow(/permission denied/);
    await expect(
      as(
        bob,
        `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission)
         VALUES ($1, $2, $3, $4, 'write')`,
        [id, alice.userId, erin.userId, alice.tenantId],
      ),
    ).rejects.toThrow(/row-level security/);
    expect((await as(bob, `DELETE FROM memory_shares WHERE memory_id = $1`, [id])).rowCount).toBe(0);
  });

  it('shows every memory carrying a shared tag, current and later, and none without it', async () => {
    const tenant = await createTestTenant(db);
    const alice = await tenant.addUser('alice');
    const carol = await tenant.addUser('carol');
    const before = await privateMemory(alice, 'pager rota lives in the wiki', ['oncall']);
    const untagged = await privateMemory(alice, 'my lunch order', ['personal']);
    await as(
      alice,
      `INSERT INTO tag_shares (owner_id, tag, shared_with, tenant_id, permission) VALUES ($1, 'oncall', $2, $3, 'read')`,
      [alice.userId, carol.userId, alice.tenantId],
    );
    const after = await privateMemory(alice, 'escalate to the DBA after 15 minutes', ['db', 'oncall']);
    const seen = await as(carol, `SELECT id FROM memories ORDER BY id`, []);
    expect(seen.rows.map((r) => String(r.id))).toEqual([before, after]);
    expect(seen.rows.map((r) => String(r.id))).not.toContain(untagged);
    // A read rule does not allow changes.
    expect((await as(carol, `UPDATE memories SET importance = 1 WHERE id = $1`, [after])).rowCount).toBe(0);
  });

  it('keeps a member’s private memory from an admin unless the tenant allows it and the admin asked', async () => {
    const tenant = await createTestTenant(db);
    const alice = await tenant.addUser('alice');
    const root = await tenant.addUser('root');
    const id = await privateMemory(alice, 'alice private note');
    const asked = { ...root, scopes: ['admin'], privateAccess: true };
    const plain = { ...root, scopes: ['admin'] };
    // The tenant's default: an admin key asking for it still sees nothing of it.
    expect((await as(asked, `SELECT id FROM memories WHERE id = $1`, [id])).rows).toHaveLength(0);
    await tenant.allowAdminPrivateAccess();
    expect((await as(plain, `SELECT id FROM memories WHERE id = $1`, [id])).rows).toHaveLength(0);
    expect((await as(plain, `UPDATE memories SET importance = 0.1 WHERE id = $1`, [id])).rowCount).toBe(0);
    expect((await as(asked, `SELECT id FROM memories WHERE id = $1`, [id])).rows).toHaveLength(1);
  });

  it('lets an admin granted private access read and change every memory of their own tenant only', async () => {
    const tenant = await createTestTenant(db);
    const alice = await tenant.addUser('alice');
    await tenant.allowAdminPrivateAccess();
    const admin = { ...(await tenant.addUser('root')), scopes: ['admin'], privateAccess: true };
    const other = await createTestTenant(db);
    await other.allowAdminPrivateAccess();
    const outsider = { ...(await other.addUser('root2')), scopes: ['admin'], privateAccess: true };
    const id = await privateMemory(alice, 'alice private note');
    expect((await as(admin, `SELECT id FROM memories WHERE id = $1`, [id])).rows).toHaveLength(1);
    expect((await as(admin, `UPDATE memories SET importance = 0.1 WHERE id = $1`, [id])).rowCount).toBe(1);
    expect((await as(outsider, `SELECT id FROM memories WHERE id = $1`, [id])).rows).toHaveLength(0);
    // Without the admin scope on the key, the same user is an ordinary member.
    const member = { tenantId: admin.tenantId, userId: admin.userId };
    expect((await as(member, `SELECT id FROM memories WHERE id = $1`, [id])).rows).toHaveLength(0);
  });

  it('never shares across tenants', async () => {
    const t1 = await createTestTenant(db);
    const alice = await t1.addUser('alice');
    const dave = await (await createTestTenant(db)).addUser('dave');
    const id = await privateMemory(alice, 'tenant one only');
    await expect(
      as(
        alice,
        `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission)
         VALUES ($1, $2, $3, $4, 'read')`,
        [id, alice.userId, dave.userId, alice.tenantId],
      ),
    ).rejects.toThrow(/row-level security/);
    expect((await as(dave, `SELECT id FROM memories WHERE id = $1`, [id])).rows).toHaveLength(0);
    expect((await as(dave, `SELECT * FROM memory_shares`, [])).rows).toHaveLength(0);
  });
});
