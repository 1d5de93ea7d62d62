import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { settleSync } from '../support/sync-settle';

interface Recalled {
  id: number;
  redirected_from?: number;
}
interface Proposal {
  id: number;
  owner: string;
  supersedes: number | null;
  review_state: string;
}
interface AuditPage {
  entries: Array<{
    actor: string | null;
    action: string;
    target_id: string;
    details: Record<string, unknown>;
  }>;
}

/**
 * Corrections by anyone, with review: a teammate's correction of a team memory they may not change
 * is a proposal the team sees; recall serves the original until its owner (or an admin) accepts,
 * then the correction with `redirected_from`; a tenant that reviews team memories keeps a new one
 * out of recall until an admin accepts it. Every step is audited.
 */
describe('proposals and review (built API, REST and MCP)', () => {
  const team = teamFixture({ REDIS_URL: '', DEFAULT_VISIBILITY: 'team' });
  const m = `m${randomUUID().slice(0, 8)}`;
  let api: ApiProcess;
  let fact: number;
  let proposal: number;

  const alice = () => client(api.url, team.keys.alice);
  const bob = () => client(api.url, team.keys.bob);
  const admin = () => client(api.url, team.keys.admin);
  const recall = async (who: ReturnType<typeof client>, context: string) => {
    const res = await who.post<{ memories: Recalled[] }>('/api/memories/recall', { context });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.memories.map((r) => ({ id: r.id, redirected_from: r.redirected_from }));
  };
  const audit = async (action: string) =>
    (await admin().get<AuditPage>(`/api/admin/audit?action=${action}&limit=50`)).body.entries;

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    const stored = await alice().post<{ id: number }>('/api/memories', {
      content: `The ${m} billing queue runs on RabbitMQ 3.12`,
      category: 'decisions',
    });
    expect(stored.status).toBe(200);
    fact = stored.body.id;
  });
  afterAll(async () => {
    if (process.env.SHOW_API_OUTPUT) console.log(api?.output());
    await api?.stop();
  });

  it('stores a teammate’s correction as a proposal (MCP says so), which the team sees', async () => {
    let mcp: Client | undefined;
    try {
      mcp = await connectMcp(`${api.url}/mcp`, bearer(team.keys.bob));
      const corrected = await callTool(mcp, 'memory_correct', {
        id: fact,
        content: `The ${m} billing queue runs on Redis streams since June`,
      });
      expect(corrected.isError).toBeFalsy();
      expect(corrected.structuredContent).toMatchObject({ review_state: 'proposed', supersedes: fact });
      proposal = (corrected.structuredContent as { id: number }).id;
      expect(corrected.text).toBe(
        `Proposed the correction as memory #${proposal}: #${fact} is a teammate’s memory, so the correction waits for its owner’s (or an admin’s) review; recall keeps answering with #${fact} until it is accepted.`,
      );
      const queue = await callTool(mcp, 'memory_proposals', {});
      expect(queue.text).toContain(`#${proposal} by bob corrects #${fact}`);
    } finally {
      await mcp?.close();
    }
    const listed = await alice().get<{ proposals: Proposal[] }>('/api/memories/proposals');
    expect(listed.status).toBe(200);
    expect(listed.body.proposals).toEqual([
      expect.objectContaining({ id: proposal, owner: 'bob', supersedes: fact, review_state: 'proposed' }),
    ]);
    expect((await alice().get(`/api/memories/${proposal}`)).body).toMatchObject({ review_state: 'proposed' });
  });

  it('keeps serving the original until it is accepted; explain names the pending proposal', async () => {
    for (const who of [alice(), bob()]) {
      const hits = await recall(who, `${m} billing queue`);
      expect(hits[0]).toEqual({ id: fact, redirected_from: undefined });
      expect(hits.map((h) => h.id)).not.toContain(proposal);
    }
    const explained = await alice().post<{
      memories: Array<{ id: number; explain: { proposals: number[] } }>;
    }>('/api/memories/recall', { context: `${m} billing queue`, explain: true });
    expect(explained.body.memories[0]).toMatchObject({ id: fact, explain: { proposals: [proposal] } });
  });

  it('lets only the corrected memory’s owner (or an admin) review it', async () => {
    const refused = await bob().post(`/api/memories/${proposal}/accept`, {});
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'forbidden' });
    expect((await alice().post(`/api/memories/${fact}/accept`, {})).status).toBe(409);
    expect((await alice().post('/api/memories/999999999/accept', {})).status).toBe(404);
  });

  it('serves the correction with redirected_from once the owner accepts it; audited; sync says so', async () => {
    type Page = { memories: Array<{ id: number; review_state?: string }>; next_cursor: string };
    await settleSync();
    const before = await alice().get<Page>('/api/memories/sync?limit=500');
    expect(before.body.memories.find((r) => r.id === proposal)).toMatchObject({ review_state: 'proposed' });
    expect(before.body.memories.find((r) => r.id === fact)?.review_state).toBeUndefined();
    const accepted = await alice().post(`/api/memories/${proposal}/accept`, { reason: 'moved in June' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body).toEqual({ id: proposal, review_state: 'accepted', supersedes: fact });
    await settleSync();
    const after = await alice().get<Page>(
      `/api/memories/sync?limit=500&cursor=${encodeURIComponent(before.body.next_cursor)}`,
    );
    const synced = after.body.memories.find((r) => r.id === proposal);
    expect(synced).toBeDefined();
    expect(synced?.review_state).toBeUndefined();
    expect((await recall(bob(), `${m} billing queue`))[0]).toEqual({ id: proposal, redirected_from: fact });
    expect((await alice().get<{ proposals: Proposal[] }>('/api/memories/proposals')).body.proposals).toEqual(
      [],
    );
    expect((await audit('memory.propose')).map((e) => [e.actor, e.target_id])).toEqual([
      ['bob', String(proposal)],
    ]);
    expect((await audit('memory.accept')).map((e) => [e.actor, e.target_id, e.details])).toEqual([
      ['alice', String(proposal), { supersedes: fact, reason: 'moved in June' }],
    ]);
  });

  it('deletes a rejected proposal, which recall never serves', async () => {
    const corrected = await bob().post<{ id: number; review_state?: string }>('/api/memories', {
      content: `The ${m} billing queue runs on Kafka`,
      supersedes: proposal,
    });
    // The accepted correction is bob's own: correcting it again is plain.
    expect(corrected.body.review_state).toBeUndefined();
    const aliceFix = await alice().post<{ id: number; review_state?: string }>('/api/memories', {
      content: `The ${m} billing queue runs on NATS`,
      supersedes: corrected.body.id,
    });
    expect(aliceFix.body.review_state).toBe('proposed');
    const rejected = await admin().post(`/api/memories/${aliceFix.body.id}/reject`, { reason: 'not true' });
    expect(rejected.body).toMatchObject({ review_state: 'rejected' });
    expect((await alice().get(`/api/memories/${aliceFix.body.id}`)).status).toBe(404);
    expect((await recall(bob(), `${m} billing queue`))[0].id).toBe(corrected.body.id);
    expect((await audit('memory.reject')).map((e) => e.details.reason)).toEqual(['not true']);
  });

  it('keeps a new team memory out of recall until an admin accepts it, where the tenant reviews them', async () => {
    const on = await admin().request('PATCH', '/api/admin/settings', { review_team_memories: true });
    expect(on.body).toMatchObject({ review_team_memories: true });
    try {
      const stored = await bob().post<{ id: number; review_state?: string }>('/api/memories', {
        content: `The ${m} staging cluster is rebuilt every Sunday`,
      });
      expect(stored.body.review_state).toBe('proposed');
      // A private memory is nobody's to review.
      const own = await bob().post<{ review_state?: string }>('/api/memories', {
        content: `My ${m} staging login is in 1Password`,
        visibility: 'private',
      });
      expect(own.body.review_state).toBeUndefined();
      const context = `${m} staging cluster rebuilt`;
      expect((await recall(alice(), context)).map((h) => h.id)).not.toContain(stored.body.id);
      expect((await alice().post(`/api/memories/${stored.body.id}/accept`, {})).status).toBe(403);
      expect((await admin().post(`/api/memories/${stored.body.id}/accept`, {})).status).toBe(200);
      expect((await recall(alice(), context))[0].id).toBe(stored.body.id);
    } finally {
      await admin().request('PATCH', '/api/admin/settings', { review_team_memories: false });
    }
  });
});
