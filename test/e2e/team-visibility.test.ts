import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import { startApiProcess, type ApiProcess } from '../support/processes';

interface Listed {
  memories: { id: number; owner: string; visibility: string; content: string }[];
  total: number;
}

describe('team knowledge: team and private memories', () => {
  let api: ApiProcess;
  let otherTenantApi: ApiProcess;
  // The shipped default: a memory stored without `visibility` is the team's.
  const team = teamFixture({ DEFAULT_VISIBILITY: 'team', REDIS_URL: '' });
  const elsewhere = teamFixture({ REDIS_URL: '' });
  const marker = randomUUID().slice(0, 8);
  let teamId: number;
  let privateId: number;

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    // Its only purpose: bootstrap a user (dave) in another tenant of the same database.
    otherTenantApi = await startApiProcess(elsewhere.env);
    const alice = client(api.url, team.keys.alice);
    const stored = await alice.post<{ id: number }>('/api/memories', {
      content: `Releases ${marker} are cut from the main branch every Tuesday`,
      category: 'decisions',
    });
    teamId = stored.body.id;
    const secret = await alice.post<{ id: number }>('/api/memories', {
      content: `I prefer ${marker} tabs over spaces in my own scratch scripts`,
      visibility: 'private',
    });
    privateId = secret.body.id;
  });

  afterAll(async () => {
    await Promise.all([api, otherTenantApi].filter(Boolean).map((p) => p.stop()));
  });

  const bob = () => client(api.url, team.keys.bob);
  const dave = () => client(api.url, elsewhere.keys.alice);

  it("gives alice's team memory, not her private one, to bob: list, get, recall", async () => {
    const listed = await bob().get<Listed>('/api/memories?limit=500');
    const mine = listed.body.memories.filter((m) => m.content.includes(marker));
    expect(mine).toEqual([expect.objectContaining({ id: teamId, owner: 'alice', visibility: 'team' })]);
    expect((await bob().get(`/api/memories/${teamId}`)).body).toMatchObject({
      owner: 'alice',
      visibility: 'team',
    });
    expect((await bob().get(`/api/memories/${privateId}`)).status).toBe(404);
    expect((await bob().get<{ total: number }>('/api/memories/count?category=decisions')).status).not.toBe(
      500,
    );
    // claude-memory-mcp's client sends unused filters as null.
    const recalled = await bob().post<{ memories: { id: number; owner: string }[] }>('/api/memories/recall', {
      context: `releases ${marker} main branch`,
      category: null,
      tags: null,
      project: null,
    });
    expect(recalled.status, JSON.stringify(recalled.body)).toBe(200);
    const ids = recalled.body.memories.map((m) => m.id);
    expect(ids).toContain(teamId);
    expect(ids).not.toContain(privateId);
    expect(recalled.body.memories.find((m) => m.id === teamId)?.owner).toBe('alice');
  });

  it('lets bob see but not change it (403), and hides the private one (404)', async () => {
    const put = await bob().put(`/api/memories/${teamId}`, { content: 'bob rewrites history' });
    expect(put).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect((await bob().delete(`/api/memories/${teamId}`)).status).toBe(403);
    expect((await bob().put(`/api/memories/${privateId}`, { content: 'x' })).status).toBe(404);
    expect((await bob().delete(`/api/memories/${privateId}`)).status).toBe(404);
    expect((await client(api.url, team.keys.alice).get(`/api/memories/${teamId}`)).body).toMatchObject({
      content: expect.stringContaining('every Tuesday'),
    });
  });

  it('answers the same over MCP', async () => {
    const mcp = await connectMcp(`${api.url}/mcp`, bearer(team.keys.bob));
    try {
      const recalled = await callTool(mcp, 'memory_recall', { context: `releases ${marker} main branch` });
      const memories = (recalled.structuredContent as { memories: { id: number; owner: string }[] }).memories;
      expect(memories.find((m) => m.id === teamId)?.owner).toBe('alice');
      expect(memories.map((m) => m.id)).not.toContain(privateId);
      expect((await callTool(mcp, 'memory_get', { id: privateId })).isError).toBe(true);
      const update = await callTool(mcp, 'memory_update', { id: teamId, content: 'nope' });
      expect(update.isError).toBe(true);
      expect(update.text).toContain('[forbidden]');
    } finally {
      await mcp.close();
    }
  });

  it('shows nothing of either to a user of another tenant', async () => {
    const listed = await dave().get<Listed>('/api/memories?limit=500');
    expect(listed.body.memories.filter((m) => m.content.includes(marker))).toEqual([]);
    expect((await dave().get(`/api/memories/${teamId}`)).status).toBe(404);
    expect((await dave().put(`/api/memories/${teamId}`, { content: 'x' })).status).toBe(404);
    const recalled = await dave().post<{ memories: { id: number }[] }>('/api/memories/recall', {
      context: `releases ${marker} main branch`,
    });
    expect(recalled.body.memories.map((m) => m.id)).not.toContain(teamId);
  });

  it('lets the owner make a team memory private again', async () => {
    const alice = client(api.url, team.keys.alice);
    expect((await alice.put(`/api/memories/${teamId}`, { visibility: 'private' })).status).toBe(200);
    expect((await bob().get(`/api/memories/${teamId}`)).status).toBe(404);
    expect((await alice.get(`/api/memories/${teamId}`)).body).toMatchObject({ visibility: 'private' });
  });
});
