import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { adminKeyInOtherTenant } from '../support/other-tenant';
import { startApiProcess, type ApiProcess } from '../support/processes';

type UserBody = { id: string; username: string; display_name: string | null; is_admin: boolean };
type KeyBody = {
  id: string;
  username: string;
  prefix: string;
  scopes: string[];
  source: string;
  status: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
};
type CreatedKey = KeyBody & { key: string };

describe('auth and admin routes (built API process, real Postgres)', () => {
  const team = teamFixture();
  let api: ApiProcess;
  let admin: ReturnType<typeof client>;
  let alice: ReturnType<typeof client>;
  let anonymous: ReturnType<typeof client>;

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    admin = client(api.url, team.keys.admin);
    alice = client(api.url, team.keys.alice);
    anonymous = client(api.url);
  });
  afterAll(async () => {
    await api?.stop();
  });

  it('answers auth-check for env keys and 401 with WWW-Authenticate for missing or wrong keys', async () => {
    expect(await alice.get('/api/auth-check')).toMatchObject({
      status: 200,
      body: { status: 'ok', user_id: 'alice' },
    });
    for (const res of [
      await anonymous.get('/api/auth-check'),
      await client(api.url, 'not-a-key-at-all').get('/api/auth-check'),
      await client(api.url, `${team.keys.alice}x`).get('/api/auth-check'),
    ]) {
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'unauthenticated' });
    }
  });

  it('refuses admin routes to members with 403', async () => {
    for (const res of [
      await alice.get('/api/admin/users'),
      await alice.post('/api/admin/users', { username: 'mallory' }),
      await alice.get('/api/admin/keys'),
    ]) {
      expect(res).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    }
  });

  it('creates and lists users, ignoring unknown fields and validating the rest', async () => {
    const created = await admin.post<UserBody>('/api/admin/users', {
      username: 'carol',
      display_name: 'Carol',
      x: 1,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ username: 'carol', display_name: 'Carol', is_admin: false });
    expect(await admin.post('/api/admin/users', { username: 'carol' })).toMatchObject({
      status: 409,
      body: { code: 'user_exists' },
    });
    const invalid = await admin.post('/api/admin/users', { username: 'no spaces allowed' });
    expect(invalid).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
    expect(String((invalid.body as { detail: string }).detail)).toContain('username');

    const list = await admin.get<{ users: UserBody[] }>('/api/admin/users');
    expect(list.body.users.map((u) => u.username)).toEqual(['admin', 'alice', 'bob', 'carol']);
  });

  it('issues a scoped key once, lists it without the secret, and revokes it', async () => {
    const res = await admin.post<CreatedKey>('/api/admin/users/carol/keys', {
      scopes: ['memories:read'],
      name: 'reader',
      expires_at: '2099-01-01T00:00:00Z',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({
      username: 'carol',
      scopes: ['memories:read'],
      status: 'active',
      source: 'managed',
    });
    expect(res.body.key).toMatch(/^msk_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
    const carol = client(api.url, res.body.key);

    expect(await carol.get('/api/auth-check')).toMatchObject({ status: 200, body: { user_id: 'carol' } });
    expect((await carol.get('/api/memories')).status).toBe(200);
    expect(await carol.post('/api/memories', { content: 'needs write scope' })).toMatchObject({
      status: 403,
      body: { code: 'forbidden' },
    });

    // A malformed filter answers the documented code, like every other contract violation.
    expect(await admin.get(`/api/admin/keys?user=${'x'.repeat(201)}`)).toMatchObject({
      status: 422,
      body: { code: 'validation_failed' },
    });
    const listed = await admin.get<{ keys: KeyBody[] }>('/api/admin/keys?user=carol');
    expect(listed.status).toBe(200);
    expect(listed.body.keys).toEqual([
      expect.objectContaining({
        id: res.body.id,
        prefix: res.body.key.slice(0, 12),
        expires_at: '2099-01-01T00:00:00.000Z',
      }),
    ]);
    expect(listed.body.keys[0].last_used_at).not.toBeNull();
    expect(JSON.stringify(listed.body)).not.toContain(res.body.key);
    expect(listed.body.keys[0]).not.toHaveProperty('key');

    const all = await admin.get<{ keys: KeyBody[] }>('/api/admin/keys');
    expect(
      all.body.keys
        .filter((k) => k.source === 'env')
        .map((k) => k.username)
        .sort(),
    ).toEqual(['admin', 'alice', 'bob']);

    const revoked = await admin.delete<KeyBody>(`/api/admin/keys/${res.body.id}`);
    expect(revoked).toMatchObject({ status: 200, body: { id: res.body.id, status: 'revoked' } });
    expect(await carol.get('/api/auth-check')).toMatchObject({
      status: 401,
      body: { code: 'unauthenticated' },
    });
  });

  it('validates key requests: scopes, expiry, unknown users and key ids', async () => {
    const cases: [() => ReturnType<typeof admin.post>, number][] = [
      [() => admin.post('/api/admin/users/carol/keys', { scopes: ['memories:read', 'root'] }), 422],
      [() => admin.post('/api/admin/users/carol/keys', { scopes: ['admin'] }), 422],
      [() => admin.post('/api/admin/users/carol/keys', { expires_at: '2001-01-01T00:00:00Z' }), 422],
      [() => admin.post('/api/admin/users/carol/keys', { expires_at: 'next week' }), 422],
      [() => admin.post('/api/admin/users/nobody/keys', {}), 404],
      [() => admin.delete('/api/admin/keys/00000000-0000-4000-8000-000000000000'), 404],
      [() => admin.delete('/api/admin/keys/not-a-uuid'), 404],
    ];
    for (const [request, status] of cases) {
      const res = await request();
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body).toEqual({ detail: expect.any(String), code: expect.any(String) });
    }
  });

  it("hides this tenant's users and keys from another tenant's admin (404, never 403)", async () => {
    const aliceKey = (await admin.get<{ keys: KeyBody[] }>('/api/admin/keys?user=alice')).body.keys[0];
    const other = client(api.url, await adminKeyInOtherTenant(`${team.tenant}-other`));

    const users = await other.get<{ users: UserBody[] }>('/api/admin/users');
    expect(users.body.users.map((u) => u.username)).toEqual(['root']);
    const keys = await other.get<{ keys: KeyBody[] }>('/api/admin/keys');
    expect(keys.body.keys.map((k) => k.username)).toEqual(['root']);
    expect((await other.delete(`/api/admin/keys/${aliceKey.id}`)).status).toBe(404);
    expect((await other.post('/api/admin/users/alice/keys', {})).status).toBe(404);
    expect((await other.get('/api/admin/keys?user=alice')).status).toBe(404);
    expect((await alice.get('/api/auth-check')).status).toBe(200);
  });
});
