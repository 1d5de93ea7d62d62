import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { adminKeyInOtherTenant } from '../support/other-tenant';
import { startApiProcess, type ApiProcess } from '../support/processes';

type Key = {
  id: string;
  prefix: string;
  username: string;
  status: string;
  expires_at: string | null;
  replaced_by: string | null;
};
type Created = Key & { key: string };
type Rotated = Created & { previous: Key };
type Entry = {
  id: number;
  action: string;
  actor: string | null;
  target_id: string | null;
  created_at: string;
};
type AuditPage = { entries: Entry[]; next_cursor: string | null };

const GRACE_SECONDS = 2;

describe('admin keys, users and audit log (built API, real Postgres and Redis)', () => {
  const team = teamFixture({ KEY_ROTATION_GRACE_SECONDS: String(GRACE_SECONDS) });
  let api: ApiProcess;
  let admin: ReturnType<typeof client>;
  let stranger: ReturnType<typeof client>;

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    admin = client(api.url, team.keys.admin);
    stranger = client(api.url, await adminKeyInOtherTenant(`other-${randomUUID().slice(0, 8)}`));
    expect((await admin.post('/api/admin/users', { username: 'carol' })).status).toBe(201);
  });
  afterAll(async () => {
    await api?.stop();
  });

  const newKey = async (user = 'carol') =>
    (await admin.post<Created>(`/api/admin/users/${user}/keys`, { name: 'ci' })).body;

  it('rotates a key: the new key works at once, the old one until the grace period ends, then 401', async () => {
    const old = await newKey();
    const rotated = await admin.post<Rotated>(`/api/admin/keys/${old.id}/rotate`);
    expect(rotated.status).toBe(201);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.body).toMatchObject({ username: 'carol', name: 'ci', status: 'active' });
    expect(rotated.body.previous).toMatchObject({ id: old.id, replaced_by: rotated.body.id });
    const before = Date.parse(rotated.body.previous.expires_at!);
    expect(before - Date.now()).toBeLessThanOrEqual(GRACE_SECONDS * 1000 + 500);

    expect((await client(api.url, old.key).get('/api/auth-check')).status).toBe(200);
    expect((await client(api.url, rotated.body.key).get('/api/auth-check')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, GRACE_SECONDS * 1000 + 300));
    expect(await client(api.url, old.key).get('/api/auth-check')).toMatchObject({
      status: 401,
      body: { code: 'unauthenticated', detail: 'API key has expired' },
    });
    expect((await client(api.url, rotated.body.key).get('/api/auth-check')).status).toBe(200);
    expect(await admin.post(`/api/admin/keys/${old.id}/rotate`)).toMatchObject({
      status: 409,
      body: { code: 'key_not_active' },
    });
    // Env keys are rotated in the environment.
    const envKey = (await admin.get<{ keys: Key[] }>('/api/admin/keys?user=alice')).body.keys[0];
    expect(await admin.post(`/api/admin/keys/${envKey.id}/rotate`)).toMatchObject({
      status: 422,
      body: { code: 'validation_failed' },
    });
  });

  it('revokes a key by the prefix the list shows; another tenant’s admin gets 404 for id and prefix', async () => {
    const created = await newKey();
    expect(await stranger.delete(`/api/admin/keys/${created.prefix}`)).toMatchObject({
      status: 404,
      body: { code: 'key_not_found' },
    });
    expect((await stranger.post(`/api/admin/keys/${created.id}/rotate`)).status).toBe(404);
    expect((await client(api.url, created.key).get('/api/auth-check')).status).toBe(200);

    const revoked = await admin.delete<Key>(`/api/admin/keys/${created.prefix}`);
    expect(revoked).toMatchObject({ status: 200, body: { id: created.id, status: 'revoked' } });
    expect((await client(api.url, created.key).get('/api/auth-check')).status).toBe(401);
    expect((await admin.delete('/api/admin/keys/msk_nothere0')).status).toBe(404);
  });

  it('disables and enables a user (their keys answer 401 meanwhile) and refuses to disable yourself', async () => {
    const bob = client(api.url, team.keys.bob);
    expect(await admin.post('/api/admin/users/bob/disable')).toMatchObject({
      status: 200,
      body: { username: 'bob', disabled_at: expect.any(String) },
    });
    expect(await bob.get('/api/memories')).toMatchObject({ status: 401, body: { code: 'unauthenticated' } });
    expect(await admin.post('/api/admin/users/bob/enable')).toMatchObject({
      status: 200,
      body: { disabled_at: null },
    });
    expect((await bob.get('/api/memories')).status).toBe(200);

    expect(await admin.post('/api/admin/users/admin/disable')).toMatchObject({ status: 422 });
    expect((await stranger.post('/api/admin/users/bob/disable')).status).toBe(404);
    expect((await client(api.url, team.keys.alice).post('/api/admin/users/bob/disable')).status).toBe(403);
  });

  it('deletes a user: disabled, memory data erased, the user row kept', async () => {
    expect((await admin.post('/api/admin/users', { username: 'dave' })).status).toBe(201);
    const dave = client(api.url, (await newKey('dave')).key);
    expect((await dave.post('/api/memories', { content: 'dave knows the deploy order' })).status).toBe(200);
    const deleted = await admin.delete<{
      user: { disabled_at: string | null };
      erasure: { memories: number };
    }>('/api/admin/users/dave');
    expect(deleted).toMatchObject({
      status: 200,
      body: { user: { disabled_at: expect.any(String) }, erasure: { memories: 1 } },
    });
    expect((await dave.get('/api/memories')).status).toBe(401);
    expect((await stranger.delete('/api/admin/users/carol')).status).toBe(404);
  });

  it('pages users and keys with next_cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${cursor}` : '';
      const page = await admin.get<{ users: { username: string }[]; next_cursor: string | null }>(
        `/api/admin/users?limit=2${query}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.users.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.users.map((u) => u.username));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['admin', 'alice', 'bob', 'carol', 'dave']);

    const keys = await admin.get<{ keys: Key[]; next_cursor: string | null }>('/api/admin/keys?limit=1');
    expect(keys.body.keys).toHaveLength(1);
    const next = await admin.get<{ keys: Key[] }>(`/api/admin/keys?limit=1&cursor=${keys.body.next_cursor}`);
    expect(next.body.keys[0].id).not.toBe(keys.body.keys[0].id);
    expect(await admin.get('/api/admin/users?limit=0')).toMatchObject({
      status: 422,
      body: { code: 'validation_failed' },
    });
    expect(await admin.get('/api/admin/keys?cursor=garbage')).toMatchObject({ status: 422 });
  });

  it('reads the audit log newest first with filters and cursors; another tenant sees none of it', async () => {
    const all = await admin.get<AuditPage>('/api/admin/audit?limit=500');
    expect(all.status).toBe(200);
    const times = all.body.entries.map((e) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.body.entries.map((e) => e.action)).toEqual(
      expect.arrayContaining([
        'api_key.rotate',
        'api_key.revoke',
        'user.disable',
        'user.enable',
        'user.data.erase',
      ]),
    );

    const revokes = await admin.get<AuditPage>('/api/admin/audit?action=api_key.*&actor=admin&limit=2');
    expect(revokes.body.entries).toHaveLength(2);
    expect(revokes.body.entries.every((e) => e.action.startsWith('api_key.') && e.actor === 'admin')).toBe(
      true,
    );
    const older = await admin.get<AuditPage>(
      `/api/admin/audit?action=api_key.*&actor=admin&limit=2&cursor=${revokes.body.next_cursor}`,
    );
    expect(older.body.entries[0].id).toBeLessThan(revokes.body.entries[1].id);

    const disable = all.body.entries.find((e) => e.action === 'user.disable')!;
    const byTarget = await admin.get<AuditPage>(
      `/api/admin/audit?target=${disable.target_id}&action=user.disable`,
    );
    expect(byTarget.body.entries.map((e) => e.id)).toEqual([disable.id]);
    expect((await admin.get<AuditPage>(`/api/admin/audit?since=2999-01-01T00:00:00Z`)).body.entries).toEqual(
      [],
    );

    expect(
      (await stranger.get<AuditPage>(`/api/admin/audit?target=${disable.target_id}`)).body.entries,
    ).toEqual([]);
    expect((await stranger.get('/api/admin/audit?actor=admin')).status).toBe(404);
    expect(await admin.get('/api/admin/audit?since=yesterday')).toMatchObject({
      status: 422,
      body: { code: 'validation_failed' },
    });
    expect((await client(api.url, team.keys.alice).get('/api/admin/audit')).status).toBe(403);
  });
});
