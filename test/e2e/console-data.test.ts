import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { startApi, type StartedApi } from '../../apps/api/src/main';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { adminKeyInOtherTenant } from '../support/other-tenant';

interface Activity {
  since: string;
  by_category: Array<{ date: string; category: string; count: number }>;
  by_owner: Array<{ date: string; owner: string; count: number }>;
}
interface Latency {
  requests: number;
  errors: number;
  mean_ms: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
}

const today = () => new Date().toISOString().slice(0, 10);
const sum = (rows: Array<{ count: number }>) => rows.reduce((n, r) => n + r.count, 0);

/** The figures the web console charts: memories over time, recall latency. */
describe('console data: /api/stats/activity and /api/admin/metrics', () => {
  const team = teamFixture({ REDIS_URL: '' });
  let api: StartedApi;
  let alice: ReturnType<typeof client>;
  let bob: ReturnType<typeof client>;
  let admin: ReturnType<typeof client>;
  let stranger: ReturnType<typeof client>;

  beforeAll(async () => {
    api = await startApi(loadConfig({ ...team.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error' }));
    alice = client(api.url, team.keys.alice);
    bob = client(api.url, team.keys.bob);
    admin = client(api.url, team.keys.admin);
    // A reader in another tenant of the same database, keyed by that tenant's admin.
    const otherAdmin = client(api.url, await adminKeyInOtherTenant(`other-${randomUUID().slice(0, 8)}`));
    const reader = await otherAdmin.post<{ key: string }>('/api/admin/users/root/keys', {
      scopes: ['memories:read', 'memories:write'],
    });
    expect(reader.status).toBe(201);
    stranger = client(api.url, reader.body.key);
    expect((await stranger.post('/api/memories', { content: 'Elsewhere entirely' })).status).toBe(200);
    const store = (who: typeof alice, content: string, category: string, visibility: string) =>
      who.post('/api/memories', { content, category, visibility });
    expect((await store(alice, 'Deploys go out on Tuesdays', 'decisions', 'team')).status).toBe(200);
    expect((await store(alice, 'The CI cache lives in S3', 'facts', 'team')).status).toBe(200);
    expect((await store(alice, 'Prefer tabs in Makefiles', 'preferences', 'private')).status).toBe(200);
    expect((await store(bob, 'Bob keeps his notes here', 'facts', 'private')).status).toBe(200);
    expect((await store(bob, 'Staging is at staging.internal', 'facts', 'team')).status).toBe(200);
  });
  afterAll(async () => {
    await api?.stop();
  });

  it('counts the memories a user can read created today, by category and by author', async () => {
    const res = await alice.get<Activity>('/api/stats/activity?days=7');
    expect(res.status).toBe(200);
    expect(res.body.by_category).toEqual(
      expect.arrayContaining([
        { date: today(), category: 'decisions', count: 1 },
        { date: today(), category: 'facts', count: 2 },
        { date: today(), category: 'preferences', count: 1 },
      ]),
    );
    // Bob's private memory is not alice's to count.
    expect(sum(res.body.by_category)).toBe(4);
    expect(res.body.by_owner).toEqual([
      { date: today(), owner: 'alice', count: 3 },
      { date: today(), owner: 'bob', count: 1 },
    ]);
    const sixDaysAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
    expect(res.body.since).toBe(sixDaysAgo);
  });

  it('counts what an admin may read (members’ private memories stay theirs), none of another tenant', async () => {
    expect(sum((await admin.get<Activity>('/api/stats/activity')).body.by_owner)).toBe(3);
    const other = await stranger.get<Activity>('/api/stats/activity');
    expect(other.status).toBe(200);
    expect(other.body.by_owner).toEqual([{ date: today(), owner: 'root', count: 1 }]);
  });

  it('leaves out deleted memories and refuses a day count out of range', async () => {
    const stored = await bob.post<{ id: number }>('/api/memories', {
      content: 'Short-lived',
      category: 'scratch',
    });
    expect((await bob.delete(`/api/memories/${stored.body.id}`)).status).toBe(200);
    const res = await bob.get<Activity>('/api/stats/activity');
    expect(res.body.by_category.find((d) => d.category === 'scratch')).toBeUndefined();
    expect((await bob.get('/api/stats/activity?days=0')).status).toBe(422);
    expect((await bob.get('/api/stats/activity?days=366')).status).toBe(422);
  });

  it('filters the memory list by visibility and by author, within what the caller can read', async () => {
    type Page = { memories: Array<{ content: string; owner: string; visibility: string }>; total: number };
    const list = async (who: typeof alice, query: string) =>
      (await who.get<Page>(`/api/memories?${query}`)).body;

    const team = await list(alice, 'visibility=team');
    expect(team.memories.map((m) => m.content).sort()).toEqual([
      'Deploys go out on Tuesdays',
      'Staging is at staging.internal',
      'The CI cache lives in S3',
    ]);
    expect(team.total).toBe(3);
    expect((await list(alice, 'visibility=private')).memories.map((m) => m.content)).toEqual([
      'Prefer tabs in Makefiles',
    ]);
    // Bob's private memory stays out of alice's list whatever she asks for.
    const bobs = await list(alice, 'author=bob');
    expect(bobs.memories.map((m) => m.content)).toEqual(['Staging is at staging.internal']);
    expect(bobs.total).toBe(1);
    // An admin key too, unless the tenant allows private access (admin-private-access.test.ts).
    expect((await list(admin, 'author=bob&visibility=private')).memories).toEqual([]);
    expect((await list(alice, 'author=nobody')).total).toBe(0);
    expect((await alice.get('/api/memories?visibility=public')).status).toBe(400);
  });

  it("summarises this replica's recall latency for admins only", async () => {
    const before = await admin.get<{ recall: Latency }>('/api/admin/metrics');
    expect(before.status).toBe(200);
    expect(before.headers.get('cache-control')).toBe('no-store');
    for (const context of ['deploys', 'CI cache', 'staging']) {
      expect((await alice.post('/api/memories/recall', { context })).status).toBe(200);
    }
    const after = (await admin.get<{ recall: Latency }>('/api/admin/metrics')).body.recall;
    expect(after.requests).toBe(before.body.recall.requests + 3);
    expect(after.errors).toBe(0);
    expect(after.p50_ms).toBeGreaterThan(0);
    expect(after.p95_ms!).toBeGreaterThanOrEqual(after.p50_ms!);
    expect((await alice.get('/api/admin/metrics')).status).toBe(403);
    expect((await client(api.url).get('/api/admin/metrics')).status).toBe(401);
  });
});
