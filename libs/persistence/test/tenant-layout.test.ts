import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  REFERENCE_TABLES,
  tenantLayoutViolations,
  tenantOwnedTables,
  type LayoutViolation,
} from '@app/persistence';

/**
 * The migrated schema can be distributed by tenant (docs/deploy.md, "Beyond one database"), and the
 * check that says so fails on a table added against the rule: each fixture is created in a
 * transaction that is rolled back.
 */
describe('tenant layout of the schema', () => {
  let db: Client;
  beforeAll(async () => {
    db = new Client({ connectionString: inject('databaseUrl') });
    await db.connect();
  });
  afterAll(async () => db.end());

  /** Runs `work` on the superuser connection inside a transaction that is rolled back afterwards. */
  async function inRolledBack<T>(work: () => Promise<T>): Promise<T> {
    await db.query('BEGIN');
    try {
      return await work();
    } finally {
      await db.query('ROLLBACK');
    }
  }

  /** The violations with `ddl` applied, undone afterwards. */
  const violationsWith = (ddl: string): Promise<LayoutViolation[]> =>
    inRolledBack(async () => {
      await db.query(ddl);
      return tenantLayoutViolations(db);
    });

  it('holds for every migrated table: tenant_id in every key, foreign keys joining on it, reference tables apart', async () => {
    expect(await tenantLayoutViolations(db)).toEqual([]);
    const owned = await tenantOwnedTables(db);
    expect(owned).toEqual(
      expect.arrayContaining(['memories', 'users', 'api_keys', 'memory_text_lengths', 'sessions']),
    );
    expect(owned).not.toEqual(expect.arrayContaining([REFERENCE_TABLES[0]]));
    expect(owned.length).toBeGreaterThanOrEqual(29);
  });

  it('fails on a new table without tenant_id, or with it nullable', async () => {
    expect(await violationsWith(`CREATE TABLE layout_fixture (id bigint PRIMARY KEY, note text)`)).toEqual([
      { table: 'layout_fixture', problem: 'no tenant_id column' },
      {
        table: 'layout_fixture',
        object: 'layout_fixture_pkey',
        problem: 'unique key or index without tenant_id',
      },
    ]);
    expect(
      await violationsWith(
        `CREATE TABLE layout_fixture (id bigint, tenant_id uuid, PRIMARY KEY (id, tenant_id))`,
      ),
    ).toEqual([]);
    expect(
      await violationsWith(
        `CREATE TABLE layout_fixture (id bigint NOT NULL, tenant_id uuid); CREATE UNIQUE INDEX layout_fixture_id ON layout_fixture (id)`,
      ),
    ).toEqual([
      { table: 'layout_fixture', problem: 'tenant_id may be null' },
      {
        table: 'layout_fixture',
        object: 'layout_fixture_id',
        problem: 'unique key or index without tenant_id',
      },
    ]);
  });

  it('fails on a foreign key between tenant tables that does not join on tenant_id, or would set it to null', async () => {
    expect(
      await violationsWith(`
        CREATE TABLE layout_parent (id bigint PRIMARY KEY, tenant_id uuid NOT NULL);
        CREATE TABLE layout_child (id bigint, tenant_id uuid NOT NULL, parent_id bigint REFERENCES layout_parent (id),
                                   PRIMARY KEY (id, tenant_id))`),
    ).toEqual([
      {
        table: 'layout_parent',
        object: 'layout_parent_pkey',
        problem: 'unique key or index without tenant_id',
      },
      {
        table: 'layout_child',
        object: 'layout_child_parent_id_fkey',
        problem: 'foreign key to layout_parent does not join on tenant_id',
      },
    ]);
    expect(
      await violationsWith(`
        CREATE TABLE layout_fixture (id bigint, tenant_id uuid NOT NULL, memory_id bigint, PRIMARY KEY (id, tenant_id),
          CONSTRAINT layout_fixture_memory FOREIGN KEY (tenant_id, memory_id) REFERENCES memories (tenant_id, id)
            ON DELETE SET NULL (memory_id))`),
    ).toEqual([
      {
        table: 'layout_fixture',
        object: 'layout_fixture_memory',
        problem: 'ON DELETE SET NULL or SET DEFAULT on a key that holds tenant_id',
      },
    ]);
    expect(
      await violationsWith(`
        CREATE TABLE layout_fixture (id bigint, tenant_id uuid NOT NULL, memory_id bigint, PRIMARY KEY (id, tenant_id),
          CONSTRAINT layout_fixture_memory FOREIGN KEY (tenant_id, memory_id) REFERENCES memories (tenant_id, id)
            ON DELETE CASCADE)`),
    ).toEqual([]);
  });

  it('fails when a reference table refers to a tenant-owned one', async () => {
    expect(
      await violationsWith(`
        ALTER TABLE embedding_models ADD COLUMN layout_user uuid, ADD COLUMN layout_tenant uuid;
        ALTER TABLE embedding_models ADD CONSTRAINT layout_fixture_user FOREIGN KEY (layout_tenant, layout_user)
          REFERENCES users (tenant_id, id)`),
    ).toEqual([
      {
        table: 'embedding_models',
        object: 'layout_fixture_user',
        problem: 'a reference table refers to the tenant-owned users',
      },
    ]);
  });

  async function tenantWithUser(slug: string): Promise<{ tenant: string; user: string }> {
    const { rows } = await db.query<{ tenant: string; user: string }>(
      `WITH t AS (INSERT INTO tenants (slug, name) VALUES ($1, $1) RETURNING id)
       INSERT INTO users (tenant_id, username) SELECT id, 'u' FROM t RETURNING tenant_id AS tenant, id AS user`,
      [slug],
    );
    return rows[0];
  }

  it('keeps an API key hash to one tenant: the same hash in a second tenant is refused, and goes with its tenant', async () => {
    await inRolledBack(async () => {
      await db.query(`SET LOCAL app.system = 'on'`);
      const a = await tenantWithUser(`layout-a-${Date.now()}`);
      const b = await tenantWithUser(`layout-b-${Date.now()}`);
      const insertKey = (owner: { tenant: string; user: string }) =>
        db.query(
          `INSERT INTO api_keys (tenant_id, user_id, key_hash, key_prefix, scopes, source)
           VALUES ($1, $2, sha256('msk_layout'::bytea), 'msk_layo', '{memories:read}', 'managed')`,
          [owner.tenant, owner.user],
        );
      await insertKey(a);
      await db.query('SAVEPOINT second');
      await expect(insertKey(b)).rejects.toMatchObject({ code: '23505', constraint: 'api_key_hashes_pkey' });
      await db.query('ROLLBACK TO SAVEPOINT second');
      const owners = () =>
        db.query<{ tenant_id: string }>(
          `SELECT tenant_id FROM api_key_hashes WHERE key_hash = sha256('msk_layout'::bytea)`,
        );
      expect((await owners()).rows).toEqual([{ tenant_id: a.tenant }]);
      await db.query(`DELETE FROM tenants WHERE id = $1`, [a.tenant]);
      expect((await owners()).rows).toEqual([]);
      await insertKey(b);
      expect((await owners()).rows).toEqual([{ tenant_id: b.tenant }]);
    });
  });

  it('deletes a tenant whole, with rows that refer to its users, keys and code events without a cascade of their own', async () => {
    const left = await inRolledBack(async () => {
      await db.query(`SET LOCAL app.system = 'on'`);
      const { tenant, user } = await tenantWithUser(`layout-c-${Date.now()}`);
      await db.query(
        `WITH k1 AS (INSERT INTO api_keys (tenant_id, user_id, key_hash, key_prefix, scopes, source)
                     VALUES ($1, $2, sha256('msk_layout_old'::bytea), 'msk_layo', '{}', 'managed') RETURNING id),
              k2 AS (INSERT INTO api_keys (tenant_id, user_id, key_hash, key_prefix, scopes, source)
                     VALUES ($1, $2, sha256('msk_layout_new'::bytea), 'msk_layo', '{}', 'managed') RETURNING id)
         UPDATE api_keys SET replaced_by = (SELECT id FROM k2) WHERE id = (SELECT id FROM k1)`,
        [tenant, user],
      );
      await db.query(
        `WITH m AS (INSERT INTO memories (tenant_id, owner_id, content, content_hash)
                    VALUES ($1, $2, 'layout', sha256('layout'::bytea)) RETURNING id),
              v AS (INSERT INTO memory_versions (memory_id, version, tenant_id, content, category, tags, importance,
                                                 visibility, is_sensitive, valid_from, changed_fields, author_id, replaced_by)
                    SELECT id, 1, $1, 'layout', 'general', '{}', 0.5, 'private', false, now(), '{}', $2, $2 FROM m),
              e AS (INSERT INTO code_events (tenant_id, repo, changes, reported_by) VALUES ($1, 'r', '[]', $2) RETURNING id),
              j AS (INSERT INTO jobs (tenant_id, kind, created_by) VALUES ($1, 'layout', $2))
         INSERT INTO memory_anchors (tenant_id, memory_id, ordinal, repo, path, changed_event)
           SELECT $1, m.id, 0, 'r', 'p', e.id FROM m, e`,
        [tenant, user],
      );
      await db.query(`DELETE FROM tenants WHERE id = $1`, [tenant]);
      const { rows } = await db.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM users WHERE tenant_id = $1) + (SELECT count(*) FROM api_keys WHERE tenant_id = $1)
              + (SELECT count(*) FROM memory_versions WHERE tenant_id = $1) + (SELECT count(*) FROM code_events WHERE tenant_id = $1)
              + (SELECT count(*) FROM memory_anchors WHERE tenant_id = $1) + (SELECT count(*) FROM jobs WHERE tenant_id = $1)
              + (SELECT count(*) FROM api_key_hashes WHERE tenant_id = $1) AS n`,
        [tenant],
      );
      return Number(rows[0].n);
    });
    expect(left).toBe(0);
  });
});
