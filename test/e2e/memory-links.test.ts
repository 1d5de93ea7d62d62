import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import { startApiProcess, type ApiProcess } from '../support/processes';

interface Linked {
  id: number;
  type: string;
  dir: 'out' | 'in';
  link_id: number;
  src_id: number;
  dst_id: number;
  link_type: string;
}
interface Recalled {
  id: number;
  redirected_from?: number;
  links: Linked[];
}
interface Detail {
  id: number;
  links_out: Linked[];
  links_in: Linked[];
}

describe('memory links and supersession (built API, REST and MCP)', () => {
  let api: ApiProcess;
  const team = teamFixture({ DEFAULT_VISIBILITY: 'team', REDIS_URL: '' });
  const m = `m${randomUUID().slice(0, 8)}`;
  // Categories only one memory has: a recall filtered to one can hit nothing else.
  const chain = `chain-${m}`;
  const staging = `staging-${m}`;

  beforeAll(async () => {
    api = await startApiProcess(team.env);
  });
  afterAll(async () => api?.stop());

  const alice = () => client(api.url, team.keys.alice);
  const bob = () => client(api.url, team.keys.bob);
  const store = async (who: ReturnType<typeof client>, body: Record<string, unknown>) => {
    const res = await who.post<{ id: number }>('/api/memories', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id;
  };
  const recall = (who: ReturnType<typeof client>, body: Record<string, unknown>) =>
    who.post<{ memories: Recalled[] }>('/api/memories/recall', body);
  const link = (who: ReturnType<typeof client>, src: number | string, body: Record<string, unknown>) =>
    who.post(`/api/memories/${src}/links`, body);

  describe('a supersedes chain of three', () => {
    let v1: number;
    let v2: number;
    let v3: number;

    beforeAll(async () => {
      // Only v1 has this category: recall filtered to it can hit nothing but v1.
      v1 = await store(alice(), { content: `Deploys of ${m} run on Jenkins`, category: chain });
      v2 = await store(alice(), { content: `Deploys of ${m} run on GitHub Actions`, supersedes: v1 });
      v3 = await store(alice(), { content: `Deploys of ${m} run on Buildkite since March` });
      const res = await link(alice(), v3, { target_id: v2, link_type: 'supersedes' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({
        id: expect.any(Number),
        src_id: v3,
        dst_id: v2,
        link_type: 'supersedes',
        created_at: expect.stringMatching(/\+00:00$/),
      });
    });

    it('answers recall with the head of the chain and where it came from', async () => {
      const res = await recall(alice(), { context: `deploys ${m} Jenkins`, category: chain });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.memories).toEqual([expect.objectContaining({ id: v3, redirected_from: v1 })]);
      expect(res.body.memories[0].links).toEqual([
        expect.objectContaining({ id: v2, type: 'supersedes', dir: 'out', src_id: v3, dst_id: v2 }),
      ]);
      // Without the filter every version may hit; each is served as the head, once.
      const all = await recall(alice(), { context: `deploys ${m}`, limit: 50 });
      const ids = all.body.memories.map((r) => r.id);
      expect(ids).not.toContain(v1);
      expect(ids).not.toContain(v2);
      expect(ids.filter((id) => id === v3)).toHaveLength(1);
    });

    it('shows history with include_superseded (null counts as absent)', async () => {
      const history = await recall(alice(), {
        context: `deploys ${m} Jenkins`,
        category: chain,
        include_superseded: true,
      });
      expect(history.body.memories).toEqual([expect.objectContaining({ id: v1, links: expect.any(Array) })]);
      expect(history.body.memories[0]).not.toHaveProperty('redirected_from');
      expect(history.body.memories[0].links).toEqual([
        expect.objectContaining({ id: v2, type: 'supersedes', dir: 'in' }),
      ]);
      const absent = await recall(alice(), {
        context: `deploys ${m} Jenkins`,
        category: chain,
        include_superseded: null,
      });
      expect(absent.body.memories.map((r) => r.id)).toEqual([v3]);
    });

    it('lists a memory’s links both ways on GET', async () => {
      const detail = (await alice().get<Detail>(`/api/memories/${v2}`)).body;
      expect(detail.links_out).toEqual([expect.objectContaining({ id: v1, type: 'supersedes', dir: 'out' })]);
      expect(detail.links_in).toEqual([expect.objectContaining({ id: v3, type: 'supersedes', dir: 'in' })]);
    });

    it('refuses a cycle (422), a duplicate (409), a self link and bad input (422), an unknown memory (404)', async () => {
      const cycle = await link(alice(), v1, { target_id: v3, link_type: 'supersedes' });
      expect(cycle).toMatchObject({ status: 422, body: { code: 'supersedes_cycle' } });
      const duplicate = await link(alice(), v3, { target_id: v2, link_type: 'supersedes' });
      expect(duplicate).toMatchObject({ status: 409, body: { code: 'link_exists' } });
      const self = await link(alice(), v1, { target_id: v1, link_type: 'see-also' });
      expect(self).toMatchObject({ status: 422, body: { code: 'link_to_self' } });
      expect((await link(alice(), 'abc', { target_id: v1, link_type: 'see-also' })).status).toBe(422);
      expect((await link(alice(), v1, { target_id: v2, link_type: 'related' })).status).toBe(422);
      expect((await link(alice(), v1, { link_type: 'see-also' })).status).toBe(422);
      const unknown = await link(alice(), v1, { target_id: 987654321, link_type: 'see-also' });
      expect(unknown).toMatchObject({ status: 404, body: { code: 'memory_not_found' } });
      expect((await alice().delete(`/api/memories/${v3}/links/abc/supersedes`)).status).toBe(422);
    });
  });

  it('lets only who may change the source link or unlink (403), and a teammate link from their own', async () => {
    const ofAlice = await store(alice(), { content: `Runbook ${m}: restart the queue` });
    const ofBob = await store(bob(), { content: `Bob's note ${m} on the queue` });
    expect(await link(bob(), ofAlice, { target_id: ofBob, link_type: 'see-also' })).toMatchObject({
      status: 403,
      body: { code: 'forbidden' },
    });
    expect((await link(bob(), ofBob, { target_id: ofAlice, link_type: 'part-of' })).status).toBe(200);
    expect((await link(alice(), ofAlice, { target_id: ofBob, link_type: 'resolved-by' })).status).toBe(200);

    const path = `/api/memories/${ofAlice}/links/${ofBob}/resolved-by`;
    expect((await bob().delete(path)).status).toBe(403);
    expect((await alice().delete(`/api/memories/${ofAlice}/links/${ofBob}/see-also`)).status).toBe(404);
    const removed = await alice().delete(path);
    expect(removed).toMatchObject({
      status: 200,
      body: { unlinked: { src_id: ofAlice, dst_id: ofBob, link_type: 'resolved-by' } },
    });
    expect((await alice().delete(path)).status).toBe(404);
  });

  it('never shows bob a link to alice’s private memory, nor lets him link or supersede it', async () => {
    const shared = await store(alice(), { content: `Team fact ${m}: the cache is Redis` });
    const secret = await store(alice(), { content: `My notes ${m} on Redis`, visibility: 'private' });
    expect((await link(alice(), shared, { target_id: secret, link_type: 'see-also' })).status).toBe(200);
    expect((await alice().get<Detail>(`/api/memories/${shared}`)).body.links_out).toHaveLength(1);
    expect((await bob().get<Detail>(`/api/memories/${shared}`)).body).toMatchObject({
      links_out: [],
      links_in: [],
    });
    const recalled = await recall(bob(), { context: `team fact ${m} cache Redis` });
    const item = recalled.body.memories.find((r) => r.id === shared);
    expect(item?.links).toEqual([]);
    expect(recalled.body.memories.map((r) => r.id)).not.toContain(secret);

    const ofBob = await store(bob(), { content: `Bob ${m} uses Redis too` });
    expect((await link(bob(), ofBob, { target_id: secret, link_type: 'see-also' })).status).toBe(404);
    const hidden = await bob().post('/api/memories', { content: `Redis ${m} v7`, supersedes: secret });
    expect(hidden).toMatchObject({ status: 404, body: { code: 'memory_not_found' } });
    // A memory shared with bob to read, not the team's: his correction is refused, not proposed.
    const lent = await store(alice(), { content: `Lent ${m}: the cache is Redis 6`, visibility: 'private' });
    expect((await alice().post(`/api/memories/${lent}/share`, { shared_with: 'bob' })).status).toBe(200);
    const forbidden = await bob().post('/api/memories', { content: `Redis ${m} v7`, supersedes: lent });
    expect(forbidden).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    // Neither refused store left a memory behind.
    const listed = await bob().get<{ memories: { content: string }[] }>('/api/memories?limit=500');
    expect(listed.body.memories.filter((x) => x.content === `Redis ${m} v7`)).toEqual([]);
    // A team memory's correction by a teammate is a proposal for alice (memory-review.test.ts).
    const proposed = await bob().post('/api/memories', { content: `Redis ${m} v8`, supersedes: shared });
    expect(proposed).toMatchObject({ status: 200, body: { review_state: 'proposed' } });
  });

  describe('over MCP', () => {
    let mcp: Client;
    let bobMcp: Client;
    beforeAll(async () => {
      mcp = await connectMcp(`${api.url}/mcp`, bearer(team.keys.alice));
      bobMcp = await connectMcp(`${api.url}/mcp`, bearer(team.keys.bob));
    });
    afterAll(async () => {
      await mcp?.close();
      await bobMcp?.close();
    });

    it('memory_correct stores the correction, and recall answers with it', async () => {
      const stored = await callTool(mcp, 'memory_store', {
        content: `Staging ${m} database runs Postgres 14`,
        category: staging,
      });
      const oldId = (stored.structuredContent as { id: number }).id;
      const corrected = await callTool(mcp, 'memory_correct', {
        supersedes: oldId,
        content: `Staging ${m} database runs Postgres 16 since the upgrade`,
      });
      expect(corrected.isError, corrected.text).toBeFalsy();
      const { id, supersedes } = corrected.structuredContent as { id: number; supersedes: number };
      expect(supersedes).toBe(oldId);

      const args = { context: `staging ${m} database Postgres`, category: staging };
      const recalled = await callTool(mcp, 'memory_recall', { ...args, include_superseded: null });
      expect(recalled.isError, recalled.text).toBeFalsy();
      const items = (recalled.structuredContent as { memories: Recalled[] }).memories;
      expect(items).toEqual([expect.objectContaining({ id, redirected_from: oldId })]);
      expect(recalled.text).toContain(`newest version of #${oldId}`);
      const history = await callTool(mcp, 'memory_recall', { ...args, include_superseded: true });
      expect((history.structuredContent as { memories: Recalled[] }).memories.map((r) => r.id)).toEqual([
        oldId,
      ]);
      const got = await callTool(mcp, 'memory_get', { id });
      expect(got.structuredContent).toMatchObject({ links_out: [{ id: oldId, type: 'supersedes' }] });
      expect(got.text).toContain(`supersedes #${oldId}`);

      // Bob may not change alice's memory: his correction waits for her review.
      const proposed = await callTool(bobMcp, 'memory_correct', {
        supersedes: oldId,
        content: `Bob ${m} says 15`,
      });
      expect(proposed.isError, proposed.text).toBeFalsy();
      expect(proposed.structuredContent).toMatchObject({ review_state: 'proposed', supersedes: oldId });
      const still = await callTool(mcp, 'memory_recall', args);
      expect((still.structuredContent as { memories: Recalled[] }).memories).toEqual([
        expect.objectContaining({ id, redirected_from: oldId }),
      ]);
    });

    it('memory_correct takes the old id as `id` too, and refuses a call that names none or two', async () => {
      const oldId = await store(alice(), { content: `Runner ${m} uses node 18` });
      const corrected = await callTool(mcp, 'memory_correct', {
        id: oldId,
        content: `Runner ${m} uses node 20`,
      });
      expect(corrected.isError, corrected.text).toBeFalsy();
      expect(corrected.structuredContent).toMatchObject({ supersedes: oldId });
      const got = await callTool(mcp, 'memory_get', {
        id: (corrected.structuredContent as { id: number }).id,
      });
      expect(got.structuredContent).toMatchObject({ links_out: [{ id: oldId, type: 'supersedes' }] });

      // A refused call is an invalid-params error (a protocol error or an error result, by SDK version).
      const refused = (args: Record<string, unknown>) =>
        callTool(mcp, 'memory_correct', args).catch((error: { message: string }) => ({
          isError: true,
          text: error.message,
        }));
      const none = await refused({ content: `Runner ${m} uses node 22` });
      expect(none.isError).toBe(true);
      expect(none.text).toContain('`supersedes` (or its alias `id`)');
      const two = await refused({ id: oldId, supersedes: oldId + 1, content: `Runner ${m} uses node 22` });
      expect(two.isError).toBe(true);
      expect(two.text).toContain('give one, or the same id in both');
      const listed = await callTool(mcp, 'memory_recall', { context: `Runner ${m} node 22` });
      expect(JSON.stringify(listed.structuredContent)).not.toContain('node 22');
    });

    it('memory_link and memory_unlink', async () => {
      const a = await store(alice(), { content: `Hub ${m}: the release checklist` });
      const b = await store(alice(), { content: `Detail ${m}: tag the release` });
      const args = { id: b, target_id: a, link_type: 'part-of' };
      const linked = await callTool(mcp, 'memory_link', args);
      expect(linked.structuredContent).toMatchObject({ src_id: b, dst_id: a, link_type: 'part-of' });
      const again = await callTool(mcp, 'memory_link', args);
      expect(again.isError).toBe(true);
      expect(again.text).toContain('[link_exists]');
      const removed = await callTool(mcp, 'memory_unlink', args);
      expect(removed.structuredContent).toEqual({ unlinked: { src_id: b, dst_id: a, link_type: 'part-of' } });
      expect((await callTool(mcp, 'memory_unlink', args)).text).toContain('[link_not_found]');
    });
  });
});
