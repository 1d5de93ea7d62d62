import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { runMigrations } from '@app/persistence';
import {
  ALL_SCOPES,
  MEMBER_SCOPES,
  TenancyErrorCode,
  type EnvAuthSettings,
  type SystemActor,
  type TenancyUseCases,
} from '@app/tenancy';
import { createTenancyUseCases } from '@app/tenancy/testing';
import { openTestDatabase, type TestDatabase } from '@app/testing';

/**
 * The bootstrap looks at the whole database ("is there any active key?"), so these tests get a
 * database of their own, with two connections pools standing in for two API replicas.
 */
describe('env bootstrap', () => {
  const name = `memsvc_bootstrap_${process.pid}`;
  let replicas: { db: TestDatabase; cases: TenancyUseCases }[];

  const admin = async <T>(work: (c: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ connectionString: inject('adminDatabaseUrl') });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await admin(async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.query(`CREATE DATABASE ${name}`);
    });
    const url = new URL(inject('adminDatabaseUrl'));
    url.pathname = `/${name}`;
    replicas = [];
    for (let i = 0; i < 2; i++) {
      const db = await openTestDatabase(url.toString());
      replicas.push({ db, cases: createTenancyUseCases(db.tx, { ttlMs: 0 }) });
    }
    await runMigrations(replicas[0].db.dataSource);
  });

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.db.close()));
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  });

  const first = () => replicas[0];
  const sql = <Row>(text: string, params: unknown[] = []) =>
    first().db.tx.asSystem(async (tx) => (await tx.query<Row>(text, params)).rows);
  const auth = (key: string) => first().cases.authenticateApiKey.execute(key);
  const tenantSlug = () => `boot-${randomBytes(4).toString('hex')}`;
  const key = (who: string) => `${who}-${randomBytes(8).toString('hex')}`;

  // Runs first: the database has no key at all yet.
  it('generates exactly one admin key on a first run with nothing configured, even with two replicas', async () => {
    const settings: EnvAuthSettings = { defaultTenant: 'default', apiKeys: {} };
    const results = await Promise.all(replicas.map((r) => r.cases.bootstrapFromEnv.execute(settings)));
    const generated = results.map((r) => r.generatedAdminKey).filter((k): k is string => k !== undefined);
    expect(generated).toHaveLength(1);
    expect(generated[0]).toMatch(/^msk_/);

    const principal = await auth(generated[0]);
    expect(principal).toMatchObject({ username: 'admin', tenantSlug: 'default', scopes: ALL_SCOPES });
    const [user] = await sql<{ is_admin: boolean }>(`SELECT is_admin FROM users WHERE id = $1`, [
      principal.userId,
    ]);
    expect(user.is_admin).toBe(true);

    // A restart finds an active key and prints nothing.
    const again = await first().cases.bootstrapFromEnv.execute(settings);
    expect(again.generatedAdminKey).toBeUndefined();
    const audit = await sql<{ action: string; details: { via: string } }>(
      `SELECT action, details FROM audit_log WHERE tenant_id = $1 AND target_type = 'api_key'`,
      [principal.tenantId],
    );
    expect(audit).toEqual([
      { action: 'api_key.create', details: expect.objectContaining({ via: 'bootstrap' }) },
    ]);
  });

  it('applies API_KEYS, API_KEY and ADMIN_API_KEY idempotently when two replicas start together', async () => {
    const keys = { alice: key('alice'), bob: key('bob'), default: key('default'), admin: key('admin') };
    const settings: EnvAuthSettings = {
      defaultTenant: tenantSlug(),
      apiKeys: { alice: keys.alice, bob: keys.bob },
      apiKey: keys.default,
      adminApiKey: keys.admin,
    };
    const results = await Promise.all(replicas.map((r) => r.cases.bootstrapFromEnv.execute(settings)));
    for (const result of results) {
      expect(result).toMatchObject({
        tenantSlug: settings.defaultTenant,
        envKeys: 4,
        revokedEnvKeys: 0,
        warnings: [],
      });
      expect(result.generatedAdminKey).toBeUndefined();
    }
    await first().cases.bootstrapFromEnv.execute(settings); // and a restart later

    const rows = await sql<{
      username: string;
      is_admin: boolean;
      source: string;
      active: boolean;
      scopes: string[];
    }>(
      `SELECT u.username, u.is_admin, k.source, k.revoked_at IS NULL AS active, k.scopes
         FROM users u JOIN tenants t ON t.id = u.tenant_id LEFT JOIN api_keys k ON k.user_id = u.id
        WHERE t.slug = $1 ORDER BY u.username`,
      [settings.defaultTenant],
    );
    expect(rows).toEqual([
      { username: 'admin', is_admin: true, source: 'env', active: true, scopes: [...ALL_SCOPES] },
      { username: 'alice', is_admin: false, source: 'env', active: true, scopes: [...MEMBER_SCOPES] },
      { username: 'bob', is_admin: false, source: 'env', active: true, scopes: [...MEMBER_SCOPES] },
      { username: 'default', is_admin: false, source: 'env', active: true, scopes: [...MEMBER_SCOPES] },
    ]);
    await expect(auth(keys.alice)).resolves.toMatchObject({ username: 'alice', scopes: MEMBER_SCOPES });
    await expect(auth(keys.default)).resolves.toMatchObject({ username: 'default' });
    await expect(auth(keys.admin)).resolves.toMatchObject({ username: 'admin', scopes: ALL_SCOPES });

    const created = await sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_log a JOIN tenants t ON t.id = a.tenant_id
        WHERE t.slug = $1 AND a.action IN ('user.create', 'api_key.create')`,
      [settings.defaultTenant],
    );
    expect(created[0].n).toBe(8); // 4 users + 4 keys, once each
  });

  it('revokes the old env key when a user key changes, and restores it when the change is rolled back', async () => {
    const defaultTenant = tenantSlug();
    const [ka, kb] = [key('ka'), key('kb')];
    await first().cases.bootstrapFromEnv.execute({ defaultTenant, apiKeys: { alice: ka } });
    await expect(auth(ka)).resolves.toMatchObject({ username: 'alice' });

    const rotated = await first().cases.bootstrapFromEnv.execute({ defaultTenant, apiKeys: { alice: kb } });
    expect(rotated.revokedEnvKeys).toBe(1);
    await expect(auth(ka)).rejects.toMatchObject({
      code: TenancyErrorCode.Unauthenticated,
      message: 'API key has been revoked',
    });
    await expect(auth(kb)).resolves.toMatchObject({ username: 'alice' });

    await first().cases.bootstrapFromEnv.execute({ defaultTenant, apiKeys: { alice: ka } });
    await expect(auth(ka)).resolves.toMatchObject({ username: 'alice' });
    await expect(auth(kb)).rejects.toMatchObject({ code: TenancyErrorCode.Unauthenticated });

    // Removing the user from API_KEYS revokes their env key too; the user row stays (memories keep an owner).
    const removed = await first().cases.bootstrapFromEnv.execute({ defaultTenant, apiKeys: {} });
    expect(removed.revokedEnvKeys).toBe(1);
    await expect(auth(ka)).rejects.toMatchObject({ code: TenancyErrorCode.Unauthenticated });
  });

  it('keeps an env key revoked by an administrator revoked, with a warning', async () => {
    const defaultTenant = tenantSlug();
    const leaked = key('leaked');
    await first().cases.bootstrapFromEnv.execute({ defaultTenant, apiKeys: { carol: leaked } });
    const carol = await auth(leaked);
    const operator: SystemActor = {
      kind: 'system',
      via: 'cli',
      tenantId: carol.tenantId,
      tenantSlug: carol.tenantSlug,
    };
    await first().cases.revokeApiKey.execute(operator, { keyId: carol.keyId });

    const result = await first().cases.bootstrapFromEnv.execute({
      defaultTenant,
      apiKeys: { carol: leaked },
    });
    expect(result.warnings).toEqual([expect.stringContaining('revoked by an administrator')]);
    expect(result.warnings.join()).not.toContain(leaked);
    await expect(auth(leaked)).rejects.toMatchObject({ message: 'API key has been revoked' });
  });

  it('does not take over a key that belongs to another tenant', async () => {
    const shared = key('shared');
    const [t1, t2] = [tenantSlug(), tenantSlug()];
    await first().cases.bootstrapFromEnv.execute({ defaultTenant: t1, apiKeys: { dan: shared } });
    const result = await first().cases.bootstrapFromEnv.execute({
      defaultTenant: t2,
      apiKeys: { dan: shared },
    });
    expect(result.warnings).toEqual([expect.stringContaining('another tenant')]);
    await expect(auth(shared)).resolves.toMatchObject({ tenantSlug: t1 });
  });

  it('refuses a malformed msk_ env key before writing anything', async () => {
    const defaultTenant = tenantSlug();
    await expect(
      first().cases.bootstrapFromEnv.execute({ defaultTenant, apiKeys: { erin: 'msk_typed_by_hand_1234' } }),
    ).rejects.toMatchObject({ code: TenancyErrorCode.InvalidInput });
    expect(await sql(`SELECT 1 FROM tenants WHERE slug = $1`, [defaultTenant])).toEqual([]);
  });
});
