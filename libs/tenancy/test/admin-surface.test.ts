import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MEMBER_SCOPES, TenancyErrorCode, type SystemActor, type TenancyUseCases } from '@app/tenancy';
import { createTenancyUseCases } from '@app/tenancy/testing';
import { createTestTenant, openTestDatabase, type TestDatabase, type TestTenant } from '@app/testing';

const noExpiry = { name: 'laptop', expiresAt: null, scopes: undefined } as const;

describe('key rotation, revocation by prefix, user status, paging and the audit log', () => {
  let db: TestDatabase;
  let cases: TenancyUseCases;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'));
    cases = createTenancyUseCases(db.tx, { ttlMs: 0, keyRotationGraceSeconds: 1 });
  });
  afterAll(async () => db.close());

  const operator = (tenant: TestTenant): SystemActor => ({
    kind: 'system',
    via: 'cli',
    tenantId: tenant.tenantId,
    tenantSlug: tenant.slug,
  });
  const sql = <Row>(text: string, params: unknown[] = []) =>
    db.tx.asSystem(async (tx) => (await tx.query<Row>(text, params)).rows);

  async function userWithKey(tenant: TestTenant, username: string) {
    await cases.createUser.execute(operator(tenant), { username, displayName: null, isAdmin: false });
    return cases.createApiKey.execute(operator(tenant), { ...noExpiry, user: username });
  }

  it('rotates a key: the new one works at once, the old one until the grace period ends', async () => {
    const tenant = await createTestTenant(db);
    const old = await userWithKey(tenant, 'alice');
    const rotated = await cases.rotateApiKey.execute(operator(tenant), { keyId: old.key.prefix });
    expect(rotated.key).toMatchObject({ userId: old.key.userId, name: 'laptop', scopes: MEMBER_SCOPES });
    expect(rotated.previous).toMatchObject({ id: old.key.id, replacedBy: rotated.key.id });
    expect(rotated.previous.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 1_500);

    await expect(cases.authenticateApiKey.execute(old.plaintext)).resolves.toMatchObject({
      username: 'alice',
    });
    await expect(cases.authenticateApiKey.execute(rotated.plaintext)).resolves.toMatchObject({
      username: 'alice',
    });
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await expect(cases.authenticateApiKey.execute(old.plaintext)).rejects.toMatchObject({
      code: TenancyErrorCode.Unauthenticated,
    });
    await expect(cases.authenticateApiKey.execute(rotated.plaintext)).resolves.toMatchObject({
      username: 'alice',
    });
    // A rotated key cannot be rotated again; its replacement can.
    await expect(cases.rotateApiKey.execute(operator(tenant), { keyId: old.key.id })).rejects.toMatchObject({
      code: TenancyErrorCode.KeyNotActive,
    });
    const audit = await sql<{ target_id: string; details: { replaced_by: string } }>(
      `SELECT target_id, details FROM audit_log WHERE tenant_id = $1 AND action = 'api_key.rotate'`,
      [tenant.tenantId],
    );
    expect(audit).toEqual([
      { target_id: old.key.id, details: expect.objectContaining({ replaced_by: rotated.key.id }) },
    ]);
  });

  it('revokes by the listed prefix, refuses a prefix shared by two keys, and never reaches another tenant', async () => {
    const tenant = await createTestTenant(db);
    const other = await createTestTenant(db);
    const a = await userWithKey(tenant, 'alice');
    const b = await cases.createApiKey.execute(operator(tenant), { ...noExpiry, user: 'alice' });
    const foreign = await userWithKey(other, 'eve');

    await expect(
      cases.revokeApiKey.execute(operator(tenant), { keyId: foreign.key.prefix }),
    ).rejects.toMatchObject({ code: TenancyErrorCode.KeyNotFound });
    await sql(`UPDATE api_keys SET key_prefix = $1 WHERE id = $2`, [a.key.prefix, b.key.id]);
    await expect(cases.revokeApiKey.execute(operator(tenant), { keyId: a.key.prefix })).rejects.toMatchObject(
      {
        code: TenancyErrorCode.KeyAmbiguous,
      },
    );
    await sql(`UPDATE api_keys SET key_prefix = 'msk_other000' WHERE id = $1`, [b.key.id]);
    const revoked = await cases.revokeApiKey.execute(operator(tenant), { keyId: a.key.prefix });
    expect(revoked).toMatchObject({ id: a.key.id, revokedAt: expect.any(Date) });
    await expect(cases.authenticateApiKey.execute(a.plaintext)).rejects.toMatchObject({
      code: TenancyErrorCode.Unauthenticated,
    });
    await expect(cases.authenticateApiKey.execute(foreign.plaintext)).resolves.toMatchObject({
      username: 'eve',
    });
  });

  it('disables and enables a user: their keys answer 401 in between', async () => {
    const tenant = await createTestTenant(db);
    const key = await userWithKey(tenant, 'bob');
    const disabled = await cases.changeUserStatus.execute(operator(tenant), { user: 'bob', disabled: true });
    expect(disabled.disabledAt).toBeInstanceOf(Date);
    await expect(cases.authenticateApiKey.execute(key.plaintext)).rejects.toMatchObject({
      message: 'The user of this API key is disabled',
    });
    await cases.changeUserStatus.execute(operator(tenant), { user: 'bob', disabled: false });
    await expect(cases.authenticateApiKey.execute(key.plaintext)).resolves.toMatchObject({ username: 'bob' });
    await expect(
      cases.changeUserStatus.execute(operator(tenant), { user: 'nobody', disabled: true }),
    ).rejects.toMatchObject({ code: TenancyErrorCode.UserNotFound });
  });

  it('pages users and keys with opaque cursors, each row once', async () => {
    const tenant = await createTestTenant(db);
    for (const name of ['u1', 'u2', 'u3', 'u4', 'u5']) await userWithKey(tenant, name);
    await cases.createApiKey.execute(operator(tenant), { ...noExpiry, user: 'u3' });

    const users: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await cases.listUsers.execute(operator(tenant), { cursor, limit: 2 });
      expect(page.items.length).toBeLessThanOrEqual(2);
      users.push(...page.items.map((u) => u.username));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(users).toEqual(['u1', 'u2', 'u3', 'u4', 'u5']);

    const keys: string[] = [];
    cursor = undefined;
    do {
      const page = await cases.listApiKeys.execute(operator(tenant), { cursor, limit: 4 });
      keys.push(...page.items.map((k) => k.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    const all = await sql<{ id: string }>(`SELECT id FROM api_keys WHERE tenant_id = $1`, [tenant.tenantId]);
    expect(keys).toHaveLength(6);
    expect(new Set(keys)).toEqual(new Set(all.map((k) => k.id)));

    await expect(cases.listUsers.execute(operator(tenant), { cursor: 'not-a-cursor' })).rejects.toMatchObject(
      {
        code: TenancyErrorCode.InvalidInput,
      },
    );
  });

  it('lists the audit log newest first with filters and cursors, only of the own tenant', async () => {
    const tenant = await createTestTenant(db);
    const other = await createTestTenant(db);
    await userWithKey(tenant, 'carol');
    await userWithKey(other, 'mallory');
    await cases.changeUserStatus.execute(operator(tenant), { user: 'carol', disabled: true });

    const all = await cases.listAuditLog.execute(operator(tenant), { actionPrefix: false, limit: 100 });
    const actions = all.items.map((r) => r.action);
    expect(actions).toEqual(['user.disable', 'api_key.create', 'user.create']);
    expect(all.items[0]).toMatchObject({ actorId: null, details: expect.objectContaining({ via: 'cli' }) });
    expect(JSON.stringify(all.items)).not.toContain('mallory');

    const keysOnly = await cases.listAuditLog.execute(operator(tenant), {
      action: 'api_key.',
      actionPrefix: true,
      limit: 10,
    });
    expect(keysOnly.items.map((r) => r.action)).toEqual(['api_key.create']);

    const first = await cases.listAuditLog.execute(operator(tenant), { actionPrefix: false, limit: 2 });
    expect(first.items.map((r) => r.action)).toEqual(['user.disable', 'api_key.create']);
    const second = await cases.listAuditLog.execute(operator(tenant), {
      actionPrefix: false,
      limit: 2,
      cursor: first.nextCursor!,
    });
    expect(second).toMatchObject({
      items: [expect.objectContaining({ action: 'user.create' })],
      nextCursor: null,
    });

    const future = await cases.listAuditLog.execute(operator(tenant), {
      actionPrefix: false,
      limit: 10,
      since: new Date(Date.now() + 60_000),
    });
    expect(future.items).toEqual([]);
  });

  it('purges audit rows older than the retention, of every tenant, and keeps all with 0 days', async () => {
    const tenant = await createTestTenant(db);
    await userWithKey(tenant, 'dave');
    await sql(
      `UPDATE audit_log SET created_at = now() - interval '40 days' WHERE tenant_id = $1 AND action = 'user.create'`,
      [tenant.tenantId],
    );
    expect(await cases.purgeAuditLog.execute(0)).toBe(0);
    expect(await cases.purgeAuditLog.execute(30)).toBeGreaterThanOrEqual(1);
    const left = await sql<{ action: string }>(`SELECT action FROM audit_log WHERE tenant_id = $1`, [
      tenant.tenantId,
    ]);
    expect(left.map((r) => r.action)).toEqual(['api_key.create']);
  });
});
