import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { type TransactionRunner } from '@app/persistence';
import {
  ALL_SCOPES,
  generateApiKey,
  hashApiKey,
  MEMBER_SCOPES,
  TenancyErrorCode,
  type Principal,
  type SystemActor,
  type TenancyUseCases,
} from '@app/tenancy';
import { createTenancyUseCases } from '@app/tenancy/testing';
import { createTestTenant, openTestDatabase, type TestDatabase, type TestTenant } from '@app/testing';

const noExpiry = { name: '', expiresAt: null } as const;

describe('API keys and admin use cases', () => {
  let db: TestDatabase;
  let cases: TenancyUseCases;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'));
    cases = createTenancyUseCases(db.tx, { ttlMs: 0 });
  });
  afterAll(async () => db.close());

  const operator = (tenant: TestTenant): SystemActor => ({
    kind: 'system',
    via: 'cli',
    tenantId: tenant.tenantId,
    tenantSlug: tenant.slug,
  });

  /** An admin principal of `tenant`, obtained the way a request would: by authenticating its key. */
  async function adminOf(tenant: TestTenant): Promise<Principal> {
    const root = `root-${randomBytes(3).toString('hex')}`;
    await cases.createUser.execute(operator(tenant), { username: root, displayName: null, isAdmin: true });
    const created = await cases.createApiKey.execute(operator(tenant), {
      ...noExpiry,
      user: root,
      scopes: ALL_SCOPES,
    });
    return cases.authenticateApiKey.execute(created.plaintext, 'req-admin');
  }

  const sql = <Row>(text: string, params: unknown[] = []) =>
    db.tx.asSystem(async (tx) => (await tx.query<Row>(text, params)).rows);

  it('creates a user and a key, authenticates with it, and stores only the hash', async () => {
    const tenant = await createTestTenant(db);
    const admin = await adminOf(tenant);
    const user = await cases.createUser.execute(admin, {
      username: 'alice',
      displayName: 'Alice',
      isAdmin: false,
    });
    const created = await cases.createApiKey.execute(admin, {
      user: 'alice',
      name: 'laptop',
      scopes: ['memories:read'],
      expiresAt: null,
    });
    expect(created.plaintext).toMatch(/^msk_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);

    const principal = await cases.authenticateApiKey.execute(created.plaintext, 'req-1');
    expect(principal).toEqual({
      tenantId: tenant.tenantId,
      tenantSlug: tenant.slug,
      userId: user.id,
      username: 'alice',
      keyId: created.key.id,
      scopes: ['memories:read'],
      requestId: 'req-1',
    });

    const [row] = await sql<{ key_hash: Buffer; whole: string }>(
      `SELECT key_hash, to_jsonb(k)::text AS whole FROM api_keys k WHERE id = $1`,
      [created.key.id],
    );
    expect(row.key_hash.equals(hashApiKey(created.plaintext))).toBe(true);
    expect(row.whole).not.toContain(created.plaintext.slice(12));

    // The user may also be named by id.
    const byId = await cases.createApiKey.execute(admin, { ...noExpiry, user: user.id, scopes: undefined });
    expect(byId.key.userId).toBe(user.id);

    const audit = await sql<{ action: string; actor_id: string; key_id: string; request_id: string }>(
      `SELECT action, actor_id, key_id, request_id FROM audit_log WHERE tenant_id = $1 AND actor_id IS NOT NULL ORDER BY id`,
      [tenant.tenantId],
    );
    expect(audit).toEqual([
      { action: 'user.create', actor_id: admin.userId, key_id: admin.keyId, request_id: 'req-admin' },
      { action: 'api_key.create', actor_id: admin.userId, key_id: admin.keyId, request_id: 'req-admin' },
      { action: 'api_key.create', actor_id: admin.userId, key_id: admin.keyId, request_id: 'req-admin' },
    ]);
  });

  it('lists users and keys with prefix, scopes and status but never the key or its hash', async () => {
    const tenant = await createTestTenant(db);
    const admin = await adminOf(tenant);
    await cases.createUser.execute(admin, { username: 'bob', displayName: null, isAdmin: false });
    const created = await cases.createApiKey.execute(admin, { ...noExpiry, user: 'bob', scopes: undefined });

    const users = (await cases.listUsers.execute(admin)).items;
    expect(users.map((u) => u.username)).toContain('bob');
    const keys = (await cases.listApiKeys.execute(admin, { user: 'bob' })).items;
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({
      id: created.key.id,
      username: 'bob',
      prefix: created.plaintext.slice(0, 12),
      scopes: MEMBER_SCOPES,
      source: 'managed',
      revokedAt: null,
    });
    expect(JSON.stringify(keys)).not.toContain(created.plaintext);
    expect(Object.keys(keys[0])).not.toContain('hash');
    const audited = await sql<{ action: string }>(
      `SELECT action FROM audit_log WHERE tenant_id = $1 AND action IN ('user.list', 'api_key.list')`,
      [tenant.tenantId],
    );
    expect(audited.map((a) => a.action).sort()).toEqual(['api_key.list', 'user.list']);
  });

  it('stops accepting a revoked key at once in this process and within the cache window in others', async () => {
    const tenant = await createTestTenant(db);
    const admin = await adminOf(tenant);
    await cases.createUser.execute(admin, { username: 'carol', displayName: null, isAdmin: false });
    const { plaintext, key } = await cases.createApiKey.execute(admin, {
      ...noExpiry,
      user: 'carol',
      scopes: undefined,
    });

    // This process caches for 5 s; "another replica" caches too, with a clock we control.
    const here = createTenancyUseCases(db.tx);
    let otherNow = Date.now();
    const other = createTenancyUseCases(db.tx, { ttlMs: 5_000, now: () => otherNow });
    await here.authenticateApiKey.execute(plaintext);
    await other.authenticateApiKey.execute(plaintext);

    const revoked = await here.revokeApiKey.execute(admin, { keyId: key.id });
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    await expect(here.authenticateApiKey.execute(plaintext)).rejects.toMatchObject({
      code: TenancyErrorCode.Unauthenticated,
      message: 'API key has been revoked',
    });
    // The other replica may still accept it until its cache entry ages out (documented window)…
    await expect(other.authenticateApiKey.execute(plaintext)).resolves.toMatchObject({ keyId: key.id });
    otherNow += 5_001;
    // …and not after.
    await expect(other.authenticateApiKey.execute(plaintext)).rejects.toMatchObject({
      code: TenancyErrorCode.Unauthenticated,
    });

    // Revoking again is idempotent and keeps the first time.
    const again = await here.revokeApiKey.execute(admin, { keyId: key.id });
    expect(again.revokedAt?.getTime()).toBe(revoked.revokedAt?.getTime());
    const [audit] = await sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_log WHERE tenant_id = $1 AND action = 'api_key.revoke' AND target_id = $2`,
      [tenant.tenantId, key.id],
    );
    expect(audit.n).toBe(2);
  });

  it('refuses expired keys, past expiry dates, disabled users and unknown keys', async () => {
    const tenant = await createTestTenant(db);
    const admin = await adminOf(tenant);
    await cases.createUser.execute(admin, { username: 'dave', displayName: null, isAdmin: false });
    await expect(
      cases.createApiKey.execute(admin, {
        name: '',
        scopes: undefined,
        user: 'dave',
        expiresAt: new Date(Date.now() - 1000),
      }),
    ).rejects.toMatchObject({ code: TenancyErrorCode.InvalidInput });

    const expiring = await cases.createApiKey.execute(admin, {
      name: '',
      scopes: undefined,
      user: 'dave',
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    await expect(cases.authenticateApiKey.execute(expiring.plaintext)).resolves.toMatchObject({
      username: 'dave',
    });
    await sql(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      expiring.key.id,
    ]);
    await expect(cases.authenticateApiKey.execute(expiring.plaintext)).rejects.toMatchObject({
      code: TenancyErrorCode.Unauthenticated,
      message: 'API key has expired',
    });
    const [listed] = (await cases.listApiKeys.execute(admin, { user: 'dave' })).items;
    expect(listed.expiresAt).toBeInstanceOf(Date);

    const other = await cases.createApiKey.execute(admin, { ...noExpiry, user: 'dave', scopes: undefined });
    await sql(`UPDATE users SET disabled_at = now() WHERE tenant_id = $1 AND username = 'dave'`, [
      tenant.tenantId,
    ]);
    await expect(cases.authenticateApiKey.execute(other.plaintext)).rejects.toMatchObject({
      code: TenancyErrorCode.Unauthenticated,
    });

    await expect(cases.authenticateApiKey.execute(generateApiKey())).rejects.toMatchObject({
      code: TenancyErrorCode.Unauthenticated,
      message: 'Invalid API key',
    });
    await expect(cases.authenticateApiKey.execute('not-a-configured-key')).rejects.toMatchObject({
      code: TenancyErrorCode.Unauthenticated,
    });
  });

  it('rejects a mistyped key before touching the database', async () => {
    const key = generateApiKey();
    const typo = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    const calls: string[] = [];
    const refusingRunner = {
      asSystem: () => {
        calls.push('asSystem');
        throw new Error('no database access expected');
      },
      inTenant: () => {
        calls.push('inTenant');
        throw new Error('no database access expected');
      },
    } as unknown as TransactionRunner;
    const offline = createTenancyUseCases(refusingRunner);
    await expect(offline.authenticateApiKey.execute(typo)).rejects.toMatchObject({
      code: TenancyErrorCode.Unauthenticated,
    });
    await expect(offline.authenticateApiKey.execute('msk_short')).rejects.toMatchObject({
      code: TenancyErrorCode.Unauthenticated,
    });
    expect(calls).toEqual([]);
  });

  it('accepts a non-msk key only when it came from the env', async () => {
    const tenant = await createTestTenant(db);
    const user = await tenant.addUser('eve');
    const raw = `opaque-${randomBytes(8).toString('hex')}`;
    await sql(
      `INSERT INTO api_keys (tenant_id, user_id, key_hash, key_prefix, scopes, source) VALUES ($1, $2, $3, 'x', $4, 'managed')`,
      [tenant.tenantId, user.userId, hashApiKey(raw), MEMBER_SCOPES],
    );
    await expect(cases.authenticateApiKey.execute(raw)).rejects.toMatchObject({
      code: TenancyErrorCode.Unauthenticated,
    });
    await sql(`UPDATE api_keys SET source = 'env' WHERE key_hash = $1`, [hashApiKey(raw)]);
    await expect(cases.authenticateApiKey.execute(raw)).resolves.toMatchObject({ username: 'eve' });
  });

  it('updates last_used_at at most once a minute per key', async () => {
    const tenant = await createTestTenant(db);
    const admin = await adminOf(tenant);
    await cases.createUser.execute(admin, { username: 'frank', displayName: null, isAdmin: false });
    const { plaintext, key } = await cases.createApiKey.execute(admin, {
      ...noExpiry,
      user: 'frank',
      scopes: undefined,
    });
    const lastUsed = async () =>
      (await sql<{ t: Date | null }>(`SELECT last_used_at AS t FROM api_keys WHERE id = $1`, [key.id]))[0].t;
    const xmin = async () =>
      (await sql<{ x: string }>(`SELECT xmin::text AS x FROM api_keys WHERE id = $1`, [key.id]))[0].x;

    expect(await lastUsed()).toBeNull();
    await cases.authenticateApiKey.execute(plaintext);
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    const version = await xmin();

    await Promise.all(Array.from({ length: 10 }, () => cases.authenticateApiKey.execute(plaintext)));
    expect((await lastUsed())?.getTime()).toBe(first?.getTime());
    expect(await xmin()).toBe(version); // not even a no-op rewrite of the row

    await sql(`UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = $1`, [key.id]);
    const backdated = await lastUsed();
    await Promise.all(Array.from({ length: 5 }, () => cases.authenticateApiKey.execute(plaintext)));
    const refreshed = await lastUsed();
    expect(refreshed!.getTime()).toBeGreaterThan(backdated!.getTime() + 60_000);
  });

  it('refuses admin actions to members, the admin scope to non-admin users, and duplicate users', async () => {
    const tenant = await createTestTenant(db);
    const admin = await adminOf(tenant);
    await cases.createUser.execute(admin, { username: 'gina', displayName: null, isAdmin: false });
    const member = await cases.authenticateApiKey.execute(
      (await cases.createApiKey.execute(admin, { ...noExpiry, user: 'gina', scopes: undefined })).plaintext,
    );
    for (const attempt of [
      () => cases.createUser.execute(member, { username: 'x', displayName: null, isAdmin: true }),
      () => cases.listUsers.execute(member),
      () => cases.listApiKeys.execute(member),
      () => cases.createApiKey.execute(member, { ...noExpiry, user: 'gina', scopes: ALL_SCOPES }),
      () => cases.revokeApiKey.execute(member, { keyId: admin.keyId }),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ code: TenancyErrorCode.Forbidden });
    }
    await expect(
      cases.createApiKey.execute(admin, { ...noExpiry, user: 'gina', scopes: ['memories:read', 'admin'] }),
    ).rejects.toMatchObject({ code: TenancyErrorCode.InvalidInput });
    await expect(
      cases.createUser.execute(admin, { username: 'gina', displayName: null, isAdmin: false }),
    ).rejects.toMatchObject({ code: TenancyErrorCode.UserExists });
    await expect(
      cases.createApiKey.execute(admin, { ...noExpiry, user: 'nobody', scopes: undefined }),
    ).rejects.toMatchObject({ code: TenancyErrorCode.UserNotFound });
  });

  it("does not let another tenant's admin see, use or revoke this tenant's users and keys", async () => {
    const home = await createTestTenant(db);
    const away = await createTestTenant(db);
    const homeAdmin = await adminOf(home);
    const awayAdmin = await adminOf(away);
    const alice = await cases.createUser.execute(homeAdmin, {
      username: 'alice',
      displayName: null,
      isAdmin: false,
    });
    const { plaintext, key } = await cases.createApiKey.execute(homeAdmin, {
      ...noExpiry,
      user: 'alice',
      scopes: undefined,
    });

    expect((await cases.listUsers.execute(awayAdmin)).items.map((u) => u.id)).not.toContain(alice.id);
    const awayKeys = (await cases.listApiKeys.execute(awayAdmin)).items;
    expect(awayKeys.map((k) => k.id)).not.toContain(key.id);
    expect(awayKeys.every((k) => k.username.startsWith('root-'))).toBe(true);

    await expect(cases.revokeApiKey.execute(awayAdmin, { keyId: key.id })).rejects.toMatchObject({
      code: TenancyErrorCode.KeyNotFound,
    });
    await expect(cases.revokeApiKey.execute(awayAdmin, { keyId: 'not-a-uuid' })).rejects.toMatchObject({
      code: TenancyErrorCode.KeyNotFound,
    });
    for (const ref of ['alice', alice.id]) {
      await expect(
        cases.createApiKey.execute(awayAdmin, { ...noExpiry, user: ref, scopes: undefined }),
      ).rejects.toMatchObject({ code: TenancyErrorCode.UserNotFound });
      await expect(cases.listApiKeys.execute(awayAdmin, { user: ref })).rejects.toMatchObject({
        code: TenancyErrorCode.UserNotFound,
      });
    }
    await expect(cases.authenticateApiKey.execute(plaintext)).resolves.toMatchObject({
      tenantId: home.tenantId,
    });

    // The database refuses too, even when the application's tenant filter is wrong (RLS).
    const crossTenant = await db.tx.inTenant(
      { tenantId: away.tenantId, userId: awayAdmin.userId },
      async (tx) =>
        tx.query(`UPDATE api_keys SET revoked_at = now(), revoked_reason = 'admin' WHERE id = $1`, [key.id]),
    );
    expect(crossTenant.rowCount).toBe(0);
  });
});
