import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';

const TENANT_TABLES = [
  'tenants',
  'users',
  'api_keys',
  'memories',
  'memory_index_state',
  'outbox',
  'audit_log',
  'idempotency_keys',
  'embedding_models',
  'memory_embeddings',
  'jobs',
  'memory_shares',
  'tag_shares',
  'memory_links',
];

describe('row-level security', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'));
  });
  afterAll(async () => db.close());

  it('forces RLS on every tenant table and runs requests as a role that cannot bypass it', async () => {
    const tables = await db.dataSource.query(
      `SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity, pg_get_userbyid(c.relowner) AS owner
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relname = ANY($1)`,
      [TENANT_TABLES],
    );
    expect(tables).toHaveLength(TENANT_TABLES.length);
    for (const t of tables) {
      expect(t.relrowsecurity, t.relname).toBe(true);
      expect(t.relforcerowsecurity, t.relname).toBe(true);
    }

    const tenant = await createTestTenant(db);
    const alice = await tenant.addUser('alice');
    const role = await db.tx.inTenant(alice, async (tx) => {
      const { rows } = await tx.query<{ current_user: string; rolsuper: boolean; rolbypassrls: boolean }>(
        `SELECT current_user, r.rolsuper, r.rolbypassrls FROM pg_roles r WHERE r.rolname = current_user`,
      );
      return rows[0];
    });
    expect(role).toEqual({ current_user: 'memory_app', rolsuper: false, rolbypassrls: false });
    expect(tables.map((t: { owner: string }) => t.owner)).not.toContain('memory_app');
  });

  it("hides another user's memories even when the query has no owner filter", async () => {
    const tenant = await createTestTenant(db);
    const alice = await tenant.addUser('alice');
    const bob = await tenant.addUser('bob');
    const id = await db.tx.inTenant(alice, async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash) VALUES ($1, $2, 'alice secret plan', $3) RETURNING id`,
        [alice.tenantId, alice.userId, createHash('sha256').update('alice secret plan').digest()],
      );
      return rows[0].id;
    });
    const seenByBob = await db.tx.inTenant(bob, (tx) =>
      tx.query(`SELECT id FROM memories WHERE id = $1`, [id]),
    );
    expect(seenByBob.rows).toHaveLength(0);
    const updatedByBob = await db.tx.inTenant(bob, (tx) =>
      tx.query(`UPDATE memories SET content = 'pwned' WHERE id = $1`, [id]),
    );
    expect(updatedByBob.rowCount).toBe(0);
    const seenByAlice = await db.tx.inTenant(alice, (tx) =>
      tx.query(`SELECT content FROM memories WHERE id = $1`, [id]),
    );
    expect(seenByAlice.rows).toEqual([{ content: 'alice secret plan' }]);
  });

  it('lets a teammate read a team memory but not change or delete it; another tenant sees nothing', async () => {
    const tenant = await createTestTenant(db);
    const alice = await tenant.addUser('alice');
    const bob = await tenant.addUser('bob');
    const dave = await (await createTestTenant(db)).addUser('dave');
    const id = await db.tx.inTenant(alice, async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash, visibility)
         VALUES ($1, $2, 'we release on Tuesdays', $3, 'team') RETURNING id`,
        [alice.tenantId, alice.userId, createHash('sha256').update('we release on Tuesdays').digest()],
      );
      return rows[0].id;
    });
    const asBob = (sql: string) => db.tx.inTenant(bob, (tx) => tx.query(sql, [id]));
    expect((await asBob(`SELECT content FROM memories WHERE id = $1`)).rows).toEqual([
      { content: 'we release on Tuesdays' },
    ]);
    expect((await asBob(`UPDATE memories SET content = 'pwned' WHERE id = $1`)).rowCount).toBe(0);
    expect((await asBob(`DELETE FROM memories WHERE id = $1`)).rowCount).toBe(0);
    expect((await asBob(`SELECT id FROM memories WHERE id = $1 FOR UPDATE`)).rows).toHaveLength(0);
    const seenByDave = await db.tx.inTenant(dave, (tx) =>
      tx.query(`SELECT id FROM memories WHERE id = $1`, [id]),
    );
    expect(seenByDave.rows).toHaveLength(0);
  });

  it('refuses to write a row for another user or tenant', async () => {
    const t1 = await createTestTenant(db);
    const t2 = await createTestTenant(db);
    const alice = await t1.addUser('alice');
    const mallory = await t2.addUser('mallory');
    await expect(
      db.tx.inTenant(mallory, (tx) =>
        tx.query(
          `INSERT INTO memories (tenant_id, owner_id, content, content_hash) VALUES ($1, $2, 'x', '\\x00')`,
          [alice.tenantId, alice.userId],
        ),
      ),
    ).rejects.toThrow(/row-level security/);
  });

  it('returns nothing to the application role when no tenant setting is present', async () => {
    const tenant = await createTestTenant(db);
    await tenant.addUser('carol');
    const rows = await db.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT set_config('role', 'memory_app', true)`);
      return {
        users: await manager.query(`SELECT count(*)::int AS n FROM users`),
        tenants: await manager.query(`SELECT count(*)::int AS n FROM tenants`),
      };
    });
    expect(rows.users[0].n).toBe(0);
    expect(rows.tenants[0].n).toBe(0);
  });
});
