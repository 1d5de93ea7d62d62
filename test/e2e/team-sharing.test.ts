import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import { startApiProcess, type ApiProcess } from '../support/processes';

interface Shared {
  memories: { id: number; shared_by: string; permission: string; content: string; tags: string }[];
}
interface Recalled {
  memories: { id: number; owner: string; shared_by: string | null }[];
}

describe('team knowledge: sharing by memory and by tag', () => {
  let api: ApiProcess;
  let otherTenantApi: ApiProcess;
  const carolKey = `carol-${randomBytes(12).toString('hex')}`;
  const base = teamFixture({ REDIS_URL: '' });
  const team = {
    ...base,
    env: {
      ...base.env,
      API_KEYS: JSON.stringify({ alice: base.keys.alice, bob: base.keys.bob, carol: carolKey }),
    },
  };
  const elsewhere = teamFixture({ REDIS_URL: '' });
  const marker = randomUUID().slice(0, 8);

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    otherTenantApi = await startApiProcess(elsewhere.env);
  });
  afterAll(async () => {
    await Promise.all([api, otherTenantApi].filter(Boolean).map((p) => p.stop()));
  });

  const alice = () => client(api.url, team.keys.alice);
  const bob = () => client(api.url, team.keys.bob);
  const carol = () => client(api.url, carolKey);
  const admin = () => client(api.url, team.keys.admin);
  const store = async (content: string, extra: Record<string, unknown> = {}) => {
    const res = await alice().post<{ id: number }>('/api/memories', { content, ...extra });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id;
  };
  const recallIds = async (who: ReturnType<typeof client>, context: string) => {
    const res = await who.post<Recalled>('/api/memories/recall', { context, category: null });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.memories;
  };

  it('shares a private memory with bob for writing: he reads, recalls and edits it, but cannot delete or reshare it', async () => {
    const id = await store(`Staging ${marker} database password rotates every first Monday`);
    expect((await bob().get(`/api/memories/${id}`)).status).toBe(404);

    const shared = await alice().post(`/api/memories/${id}/share`, {
      shared_with: 'bob',
      permission: 'write',
    });
    expect(shared).toMatchObject({ status: 200, body: { shared: id, with: 'bob', permission: 'write' } });

    expect((await bob().get(`/api/memories/${id}`)).body).toMatchObject({
      id,
      owner: 'alice',
      shared_by: 'alice',
      visibility: 'private',
    });
    const recalled = await recallIds(bob(), `staging ${marker} database password`);
    expect(recalled.find((m) => m.id === id)).toMatchObject({ owner: 'alice', shared_by: 'alice' });
    const mine = await recallIds(alice(), `staging ${marker} database password`);
    expect(mine.find((m) => m.id === id)).toMatchObject({ owner: 'alice', shared_by: null });

    expect((await bob().put(`/api/memories/${id}`, { importance: 0.9, tags: 'ops' })).status).toBe(200);
    expect((await alice().get(`/api/memories/${id}`)).body).toMatchObject({ importance: 0.9, tags: 'ops' });
    expect((await bob().put(`/api/memories/${id}`, { visibility: 'team' })).status).toBe(403);
    expect((await bob().delete(`/api/memories/${id}`)).status).toBe(403);
    expect((await bob().post(`/api/memories/${id}/share`, { shared_with: 'carol' })).status).toBe(403);
    expect((await carol().get(`/api/memories/${id}`)).status).toBe(404);

    const withMe = await bob().get<Shared>('/api/memories/shared-with-me');
    expect(withMe.body.memories.find((m) => m.id === id)).toMatchObject({
      shared_by: 'alice',
      permission: 'write',
      tags: 'ops',
    });
    const myShares = await alice().get<{
      memory_shares: { memory_id: number; shared_with: string; permission: string; preview: string }[];
      tag_shares: unknown[];
    }>('/api/memories/my-shares');
    expect(myShares.body.memory_shares).toContainEqual(
      expect.objectContaining({
        memory_id: id,
        shared_with: 'bob',
        permission: 'write',
        preview: expect.stringContaining('Staging'),
      }),
    );

    // Downgrade to read: bob still sees it but can no longer change it.
    await alice().post(`/api/memories/${id}/share`, { shared_with: 'bob', permission: 'read' });
    expect((await bob().put(`/api/memories/${id}`, { importance: 0.2 })).status).toBe(403);

    const unshared = await alice().delete(`/api/memories/${id}/share/bob`);
    expect(unshared).toMatchObject({ status: 200, body: { unshared: id, from: 'bob' } });
    expect((await bob().get(`/api/memories/${id}`)).status).toBe(404);
    expect((await recallIds(bob(), `staging ${marker} database password`)).map((m) => m.id)).not.toContain(
      id,
    );
    // Repeating the unshare answers the same.
    expect((await alice().delete(`/api/memories/${id}/share/bob`)).status).toBe(200);
  });

  it('shares current and future memories with a tag with carol, until the rule is removed', async () => {
    const tag = `oncall-${marker}`;
    const before = await store(`Pager ${marker} rota lives in the ops wiki`, { tags: [tag] });
    const untagged = await store(`My ${marker} lunch order is on the fridge`, { tags: ['personal'] });
    const rule = await alice().post('/api/memories/share-tag', { tag, shared_with: 'carol' });
    expect(rule).toMatchObject({ status: 200, body: { shared_tag: tag, with: 'carol', permission: 'read' } });
    const after = await store(`Escalate ${marker} to the database team after fifteen minutes`, {
      tags: `db, ${tag}`,
    });

    const withMe = await carol().get<Shared>('/api/memories/shared-with-me');
    const ids = withMe.body.memories.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining([before, after]));
    expect(ids).not.toContain(untagged);
    expect(withMe.body.memories.find((m) => m.id === after)).toMatchObject({
      shared_by: 'alice',
      permission: 'read',
    });
    expect((await recallIds(carol(), `escalate ${marker} database team`)).map((m) => m.id)).toContain(after);
    expect((await carol().put(`/api/memories/${after}`, { importance: 1 })).status).toBe(403);
    expect(
      (await alice().get<{ tag_shares: unknown[] }>('/api/memories/my-shares')).body.tag_shares,
    ).toContainEqual(expect.objectContaining({ tag, shared_with: 'carol', permission: 'read' }));

    // claude-memory-mcp's client sends the rule to remove as a JSON body on DELETE.
    const removed = await alice().request('DELETE', '/api/memories/share-tag', { tag, shared_with: 'carol' });
    expect(removed).toMatchObject({ status: 200, body: { unshared_tag: tag, from: 'carol' } });
    expect((await carol().get(`/api/memories/${before}`)).status).toBe(404);
    expect((await recallIds(carol(), `escalate ${marker} database team`)).map((m) => m.id)).not.toContain(
      after,
    );
  });

  it('lets an editor through a tag rule change the tags, but not drop the tag it is shared by (403, nothing changed)', async () => {
    const tag = `edit-${marker}`;
    const id = await store(`Runbook ${marker} for the nightly export`, { tags: [tag, 'ops'] });
    await alice().post('/api/memories/share-tag', { tag, shared_with: 'bob', permission: 'write' });
    expect((await bob().put(`/api/memories/${id}`, { tags: [tag, 'ops', 'nightly'] })).status).toBe(200);
    const dropped = await bob().put(`/api/memories/${id}`, { tags: ['ops'] });
    expect(dropped).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect((await alice().get(`/api/memories/${id}`)).body).toMatchObject({ tags: `${tag},ops,nightly` });
    // The owner may: bob no longer sees it.
    expect((await alice().put(`/api/memories/${id}`, { tags: ['ops'] })).status).toBe(200);
    expect((await bob().get(`/api/memories/${id}`)).status).toBe(404);
  });

  it('answers bad shares with clear 4xx and stores nothing', async () => {
    const id = await store(`Feature ${marker} flags live in LaunchDarkly`);
    const self = await alice().post(`/api/memories/${id}/share`, { shared_with: 'alice' });
    expect(self).toMatchObject({ status: 400, body: { detail: 'Cannot share with yourself' } });
    expect((await alice().post(`/api/memories/${id}/share`, { shared_with: 'nobody-here' })).status).toBe(
      404,
    );
    // A user of another tenant does not exist here.
    expect((await alice().post(`/api/memories/${id}/share`, { shared_with: 'dave' })).status).toBe(404);
    expect(
      (await alice().post(`/api/memories/${id}/share`, { shared_with: 'bob', permission: 'admin' })).status,
    ).toBe(422);
    expect((await alice().post(`/api/memories/abc/share`, { shared_with: 'bob' })).status).toBe(422);
    expect((await alice().post('/api/memories/share-tag', { tag: 'a,b', shared_with: 'bob' })).status).toBe(
      422,
    );
    expect((await alice().post('/api/memories/share-tag', { tag: 'x', shared_with: 'alice' })).status).toBe(
      400,
    );
    // Carol cannot share (or find) alice's private memory.
    expect((await carol().post(`/api/memories/${id}/share`, { shared_with: 'bob' })).status).toBe(404);
    const myShares = await alice().get<{ memory_shares: { memory_id: number }[] }>('/api/memories/my-shares');
    expect(myShares.body.memory_shares.map((s) => s.memory_id)).not.toContain(id);
    // Another tenant sees none of it.
    const dave = client(api.url, elsewhere.keys.alice);
    expect((await dave.get(`/api/memories/${id}`)).status).toBe(404);
    expect((await dave.get<Shared>('/api/memories/shared-with-me')).body.memories).toEqual([]);
  });

  it('lists what each caller may read, each memory once, with the same total on every page', async () => {
    const [t1, t2] = [`list-a-${marker}`, `list-b-${marker}`];
    const secret = await store(`Unshared ${marker} note`, { visibility: 'private' });
    const direct = await store(`Directly ${marker} shared note`, { visibility: 'private' });
    const byTags = await store(`Tagged ${marker} note`, { visibility: 'private', tags: [t1, t2] });
    const both = await store(`Shared ${marker} twice over`, { visibility: 'private', tags: [t1] });
    const team = await store(`Team ${marker} note`, { visibility: 'team' });
    for (const id of [direct, both])
      await alice().post(`/api/memories/${id}/share`, { shared_with: 'carol' });
    for (const tag of [t1, t2]) await alice().post('/api/memories/share-tag', { tag, shared_with: 'carol' });
    const ours = [secret, direct, byTags, both, team];

    type Listed = { memories: { id: number }[]; total: number };
    const listed = async (who: ReturnType<typeof client>) => {
      const all = (await who.get<Listed>('/api/memories?limit=1000')).body;
      const firstPage = (await who.get<Listed>('/api/memories?limit=1')).body;
      const ids = all.memories.map((m) => m.id);
      expect(new Set(ids).size, 'each memory once').toBe(ids.length);
      expect([all.total, firstPage.total]).toEqual([ids.length, ids.length]);
      return ids.filter((id) => ours.includes(id)).sort((a, b) => a - b);
    };
    expect(await listed(carol())).toEqual([direct, byTags, both, team]);
    expect(await listed(bob())).toEqual([team]);
    // An admin key sees what any member sees: private memories stay private (admin-private-access.test.ts).
    expect(await listed(admin())).toEqual([team]);
  });

  it('keeps a private memory of the tenant from an admin key, which cannot share it either', async () => {
    const id = await store(`Admin ${marker} cannot see private notes`);
    expect((await admin().get(`/api/memories/${id}`)).status).toBe(404);
    expect((await admin().put(`/api/memories/${id}`, { importance: 0.1 })).status).toBe(404);
    expect((await admin().post(`/api/memories/${id}/share`, { shared_with: 'bob' })).status).toBe(404);
    expect((await bob().get(`/api/memories/${id}`)).status).toBe(404);
    expect((await admin().delete(`/api/memories/${id}`)).status).toBe(404);
    expect((await alice().get(`/api/memories/${id}`)).body).toMatchObject({ id, importance: 0.5 });
  });

  it('stores with the key’s own default visibility', async () => {
    const created = await admin().post<{ key: string; default_visibility: string }>(
      '/api/admin/users/bob/keys',
      {
        name: 'team-default',
        default_visibility: 'team',
      },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.default_visibility).toBe('team');
    const bobTeamKey = client(api.url, created.body.key);
    const stored = await bobTeamKey.post<{ id: number }>('/api/memories', {
      content: `Bob ${marker} shares by default`,
    });
    expect((await bobTeamKey.get(`/api/memories/${stored.body.id}`)).body).toMatchObject({
      visibility: 'team',
    });
    // The fixture's configured default (private) still applies to his other key.
    const other = await bob().post<{ id: number }>('/api/memories', {
      content: `Bob ${marker} keeps this one`,
    });
    expect((await bob().get(`/api/memories/${other.body.id}`)).body).toMatchObject({ visibility: 'private' });
    expect((await alice().get(`/api/memories/${stored.body.id}`)).status).toBe(200);
    expect((await alice().get(`/api/memories/${other.body.id}`)).status).toBe(404);
  });

  it('offers the same through MCP tools, with isError for refusals', async () => {
    const aliceMcp = await connectMcp(`${api.url}/mcp`, bearer(team.keys.alice));
    const bobMcp = await connectMcp(`${api.url}/mcp`, bearer(team.keys.bob));
    try {
      const id = await store(`Cache ${marker} warmup runs at 5am`);
      const shared = await callTool(aliceMcp, 'memory_share', { id, shared_with: 'bob' });
      expect(shared.structuredContent).toEqual({ shared: id, with: 'bob', permission: 'read' });
      const withMe = await callTool(bobMcp, 'memory_shared_with_me');
      expect(withMe.text).toMatch(
        new RegExp(`#${id} · facts · by alice · [0-9-]+ · shared with you \\(read\\)\n> Cache`),
      );
      const mine = await callTool(aliceMcp, 'memory_my_shares');
      expect(mine.text).toContain(`memory #${id} → bob (read)`);
      expect((await callTool(bobMcp, 'memory_share', { id, shared_with: 'carol' })).isError).toBe(true);
      const self = await callTool(aliceMcp, 'memory_share', { id, shared_with: 'alice' });
      expect(self).toMatchObject({ isError: true });
      expect(self.text).toContain('Cannot share with yourself');
      expect((await callTool(aliceMcp, 'memory_unshare', { id, shared_with: 'bob' })).isError).toBeFalsy();
      expect((await callTool(bobMcp, 'memory_get', { id })).isError).toBe(true);

      const tag = `runbook-${marker}`;
      expect(
        (await callTool(aliceMcp, 'memory_share_tag', { tag, shared_with: 'bob', permission: 'write' }))
          .structuredContent,
      ).toEqual({
        shared_tag: tag,
        with: 'bob',
        permission: 'write',
      });
      expect(
        (await callTool(aliceMcp, 'memory_unshare_tag', { tag, shared_with: 'bob' })).structuredContent,
      ).toEqual({
        unshared_tag: tag,
        from: 'bob',
      });

      // Bob cannot promote alice's memory; alice can, and then bob reads it as team knowledge.
      expect((await callTool(bobMcp, 'memory_promote', { id })).isError).toBe(true);
      expect((await callTool(aliceMcp, 'memory_promote', { id })).structuredContent).toEqual({ updated: id });
      expect((await bob().get(`/api/memories/${id}`)).body).toMatchObject({
        visibility: 'team',
        shared_by: null,
      });
    } finally {
      await Promise.all([aliceMcp.close(), bobMcp.close()]);
    }
  });
});
