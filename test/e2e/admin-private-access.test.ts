import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { startApiProcess, type ApiProcess } from '../support/processes';

interface Listed {
  memories: Array<{ id: number }>;
}
interface AuditPage {
  entries: Array<{ actor: string; action: string; details: Record<string, unknown> }>;
}

/**
 * Private means private, admins included: with the tenant's default an admin key gets 404 for a
 * member's private memory on every route and still manages the member (erasure); with
 * `admin_private_access` on, the access succeeds only with a reason, which is audited.
 */
describe('admins and members’ private memories (built API)', () => {
  const team = teamFixture({ REDIS_URL: '', MEMORY_ENCRYPTION_KEY: 'admin private access passphrase 7' });
  const m = `m${randomUUID().slice(0, 8)}`;
  const reason = { 'x-private-access-reason': `Incident 4711: ${m} leaked into logs, checking` };
  let api: ApiProcess;
  let note: number;
  let secret: number;

  const alice = () => client(api.url, team.keys.alice);
  const bob = () => client(api.url, team.keys.bob);
  const admin = () => client(api.url, team.keys.admin);
  const store = async (body: Record<string, unknown>) => {
    const res = await alice().post<{ id: number }>('/api/memories', { visibility: 'private', ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id;
  };
  /** Every way an admin reaches a memory, with its status (and whether it showed up where listed). */
  const reach = async (headers: Record<string, string> = {}) => {
    const who = admin();
    const listed = await who.get<Listed>('/api/memories?limit=1000', headers);
    const recalled = await who.post<Listed>('/api/memories/recall', { context: `${m} rotation` }, headers);
    return {
      list: listed.body.memories?.some((x) => x.id === note),
      get: (await who.get(`/api/memories/${note}`, headers)).status,
      recall: recalled.body.memories?.some((x) => x.id === note),
      reveal: (await who.post(`/api/memories/${secret}/secret`, {}, headers)).status,
      versions: (await who.get(`/api/memories/${note}/versions`, headers)).status,
      update: (await who.put(`/api/memories/${note}`, { importance: 0.2 }, headers)).status,
    };
  };

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    note = await store({ content: `${m}: the on-call rotation spreadsheet is in my drive` });
    secret = await store({ content: `${m} personal VPN password Zq8-rT4-pW1`, force_sensitive: true });
    // The owner reaches both, versions included: a 404 below is the rule, not a missing route.
    expect((await alice().get(`/api/memories/${note}/versions`)).status).toBe(200);
    expect((await alice().post(`/api/memories/${secret}/secret`, {})).status).toBe(200);
  });
  afterAll(async () => api?.stop());

  it('answers 404 to an admin key for a member’s private memory by default, on every route', async () => {
    expect(await reach()).toEqual({
      list: false,
      get: 404,
      recall: false,
      reveal: 404,
      versions: 404,
      update: 404,
    });
    expect((await admin().delete(`/api/memories/${note}`)).status).toBe(404);
    expect((await alice().get(`/api/memories/${note}`)).status).toBe(200);
  });

  it('refuses a reason while the tenant keeps private memories private, and from a member always', async () => {
    const refused = await admin().get(`/api/memories/${note}`, reason);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: 'forbidden',
      detail: expect.stringContaining('admin_private_access'),
    });
    const member = await bob().get(`/api/memories/${note}`, reason);
    expect(member.status).toBe(403);
  });

  it('lets the admin still manage the member: a new user’s private data is erased', async () => {
    expect((await admin().post('/api/admin/users', { username: `carol-${m}` })).status).toBe(201);
    const key = await admin().post<{ key: string }>(`/api/admin/users/carol-${m}/keys`, { name: 'k' });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    const carol = client(api.url, key.body.key);
    const stored = await carol.post<{ id: number }>('/api/memories', {
      content: `${m} carol's private note`,
      visibility: 'private',
    });
    expect((await admin().get(`/api/memories/${stored.body.id}`)).status).toBe(404);
    const erased = await admin().delete<{ memories: number }>(`/api/admin/users/carol-${m}/data`);
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    expect(erased.body.memories).toBe(1);
    expect((await carol.get(`/api/memories/${stored.body.id}`)).status).toBe(404);
  });

  describe('with admin_private_access on', () => {
    beforeAll(async () => {
      const res = await admin().request('PATCH', '/api/admin/settings', { admin_private_access: true });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ admin_private_access: true });
    });

    it('still answers 404 without a reason, and 422 for a reason that says nothing', async () => {
      expect((await admin().get(`/api/memories/${note}`)).status).toBe(404);
      const empty = await admin().get(`/api/memories/${note}`, { 'x-private-access-reason': 'x' });
      expect(empty.status).toBe(422);
      expect(empty.body).toMatchObject({ detail: expect.stringContaining('x-private-access-reason') });
    });

    it('reaches the memory with a reason on every route, and audits each request naming the reason', async () => {
      expect(await reach(reason)).toEqual({
        list: true,
        get: 200,
        recall: true,
        reveal: 200,
        versions: 200,
        update: 200,
      });
      const audit = await admin().get<AuditPage>('/api/admin/audit?action=admin.private_access&limit=50');
      expect(audit.status).toBe(200);
      const mine = audit.body.entries.filter((e) => e.details.reason === reason['x-private-access-reason']);
      expect(mine).toHaveLength(6);
      expect(mine.every((e) => e.actor === 'admin')).toBe(true);
      expect(mine.map((e) => `${e.details.method} ${e.details.path}`).sort()).toEqual(
        [
          'GET /api/memories',
          `GET /api/memories/${note}`,
          'POST /api/memories/recall',
          `POST /api/memories/${secret}/secret`,
          `GET /api/memories/${note}/versions`,
          `PUT /api/memories/${note}`,
        ].sort(),
      );
    });

    it('takes effect off again at once', async () => {
      await admin().request('PATCH', '/api/admin/settings', { admin_private_access: false });
      expect((await admin().get(`/api/memories/${note}`, reason)).status).toBe(403);
      expect((await admin().get(`/api/memories/${note}`)).status).toBe(404);
    });
  });
});
