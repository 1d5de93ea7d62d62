import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import {
  startApiProcess,
  startWorkerProcess,
  type ApiProcess,
  type WorkerProcess,
} from '../support/processes';
import { withDb } from '../support/superuser-db';
import { waitFor } from '../support/wait-for';

interface Stored {
  id: number;
  category: string;
  importance: number;
  duplicate_of?: number;
  match?: 'exact' | 'near';
  similarity?: number;
}
interface Recalled {
  id: number;
  explain?: { vector_rank: number | null };
}

/**
 * One fact once per team: a teammate storing what a team memory already says (same text, or the
 * same meaning) gets that memory back and writes no row, through REST, MCP and `check`; private
 * memories stay out of it both ways.
 */
describe('team-wide duplicates (built API + worker, real model, Postgres + Redis)', () => {
  const team = teamFixture({ DEFAULT_VISIBILITY: 'team' });
  const m = `m${randomUUID().slice(0, 8)}`;
  // Texts without a random marker (the tenant is new): their embeddings, and so their similarity
  // under the shipped model (0.93 for this pair), are the same on every run.
  const fact = 'We deploy the billing service with helm 3 and never kubectl apply.';
  const paraphrase = 'We deploy the billing service with helm 3 and never with kubectl apply.';
  let api: ApiProcess;
  let worker: WorkerProcess;
  let factId: number;

  const alice = () => client(api.url, team.keys.alice);
  const bob = () => client(api.url, team.keys.bob);
  const store = async (who: ReturnType<typeof client>, body: Record<string, unknown>) => {
    const res = await who.post<Stored>('/api/memories', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const rowsSaying = (text: string) =>
    withDb(async (db) => {
      const { rows } = await db.query<{ owner: string; visibility: string }>(
        `SELECT u.username AS owner, m.visibility FROM memories m JOIN users u ON u.id = m.owner_id
           JOIN tenants t ON t.id = m.tenant_id
          WHERE t.slug = $2 AND m.content = $1 AND m.deleted_at IS NULL ORDER BY m.id`,
        [text, team.tenant],
      );
      return rows;
    });

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    worker = await startWorkerProcess(team.env);
    factId = (await store(alice(), { content: fact, category: 'decisions', tags: 'deploy' })).id;
    // The same meaning is found by the fact's embedding: wait until the worker has written it.
    await waitFor(
      'the fact embedded',
      async () => {
        const res = await alice().post<{ memories: Recalled[] }>('/api/memories/recall', {
          context: 'helm deploys of the billing service',
          explain: true,
        });
        return res.body.memories.find((r) => r.id === factId)?.explain?.vector_rank != null || undefined;
      },
      60_000,
      250,
    );
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
  });

  it('answers a teammate’s verbatim store with the existing team memory and writes no row', async () => {
    const stored = await store(bob(), { content: fact, category: 'facts' });
    expect(stored).toEqual({
      id: factId,
      category: 'decisions',
      importance: expect.any(Number),
      duplicate_of: factId,
      match: 'exact',
      similarity: 1,
    });
    expect(await rowsSaying(fact)).toEqual([{ owner: 'alice', visibility: 'team' }]);
  });

  it('answers a paraphrase with the same team memory (near match, its similarity)', async () => {
    const stored = await store(bob(), { content: paraphrase });
    expect(stored).toMatchObject({ id: factId, duplicate_of: factId, match: 'near' });
    expect(stored.similarity).toBeGreaterThanOrEqual(0.92);
    expect(stored.similarity).toBeLessThan(1);
    expect(await rowsSaying(paraphrase)).toEqual([]);
  });

  it('stores the same words saying the opposite as a memory of its own', async () => {
    // Scored as close as the paraphrase by the model (0.92): the words tell them apart.
    const opposite = 'We deploy the billing service with kubectl apply and never helm 3.';
    const stored = await store(bob(), { content: opposite });
    expect(stored.id).not.toBe(factId);
    expect(stored.duplicate_of).toBeUndefined();
    expect(await rowsSaying(opposite)).toEqual([{ owner: 'bob', visibility: 'team' }]);
  });

  it('folds an import’s repeat of the team fact and stores the rest', async () => {
    const fresh = `Import ${m}: the on-call rotation changes on Mondays.`;
    const res = await bob().post<Stored[]>('/api/memories/import', [{ content: fact }, { content: fresh }]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body[0]).toMatchObject({ id: factId, duplicate_of: factId, match: 'exact' });
    expect(res.body[1].duplicate_of).toBeUndefined();
    expect(await rowsSaying(fact)).toEqual([{ owner: 'alice', visibility: 'team' }]);
    expect(await rowsSaying(fresh)).toEqual([{ owner: 'bob', visibility: 'team' }]);
  });

  it('records the teammate as endorsing the memory, in the audit log too', async () => {
    const endorsements = await withDb(async (db) => {
      const { rows } = await db.query<{ username: string }>(
        `SELECT u.username FROM memory_endorsements e JOIN users u ON u.id = e.user_id WHERE e.memory_id = $1`,
        [factId],
      );
      return rows.map((r) => r.username);
    });
    expect(endorsements).toEqual(['bob']);
    const audit = await client(api.url, team.keys.admin).get<{
      entries: Array<{ actor: string; target_id: string; details: Record<string, unknown> }>;
    }>(`/api/admin/audit?action=memory.endorse&target=${factId}`);
    expect(audit.status, JSON.stringify(audit.body)).toBe(200);
    expect(audit.body.entries.map((e) => [e.actor, e.details.match])).toEqual([
      ['bob', 'exact'],
      ['bob', 'near'],
      ['bob', 'exact'],
    ]);
  });

  it('says so over MCP: memory_store names the existing memory, memory_check answers NOOP', async () => {
    let mcp: Client | undefined;
    try {
      mcp = await connectMcp(`${api.url}/mcp`, bearer(team.keys.bob));
      const stored = await callTool(mcp, 'memory_store', { content: fact });
      expect(stored.isError).toBeFalsy();
      expect(stored.text).toBe(
        `Not stored again: memory #${factId} already says this (the same text); nothing new was written.`,
      );
      expect(stored.structuredContent).toMatchObject({ id: factId, duplicate_of: factId, match: 'exact' });
      const checked = await callTool(mcp, 'memory_check', { content: paraphrase });
      expect(checked.structuredContent).toMatchObject({ action: 'NOOP', match: { id: factId } });
    } finally {
      await mcp?.close();
    }
    expect(await rowsSaying(fact)).toEqual([{ owner: 'alice', visibility: 'team' }]);
  });

  it('keeps a private copy the writer’s own business', async () => {
    const stored = await store(bob(), { content: fact, visibility: 'private' });
    expect(stored.id).not.toBe(factId);
    expect(stored.duplicate_of).toBeUndefined();
    expect(await rowsSaying(fact)).toEqual([
      { owner: 'alice', visibility: 'team' },
      { owner: 'bob', visibility: 'private' },
    ]);
  });

  it('never folds into, nor names, a teammate’s private memory', async () => {
    const secretPlan = `Private note ${m}: the ${m} billing launch moves to Q3.`;
    const alices = await store(alice(), { content: secretPlan, visibility: 'private' });
    const bobs = await store(bob(), { content: secretPlan });
    expect(bobs.id).not.toBe(alices.id);
    expect(bobs.duplicate_of).toBeUndefined();
    expect(Object.values(bobs)).not.toContain(alices.id);
    expect(await rowsSaying(secretPlan)).toEqual([
      { owner: 'alice', visibility: 'private' },
      { owner: 'bob', visibility: 'team' },
    ]);
  });

  it('folds one fact stored by two teammates at the same moment into one row', async () => {
    const race = `Race ${m}: the staging database is rebuilt every Sunday at 02:00 UTC.`;
    const [a, b] = await Promise.all([store(alice(), { content: race }), store(bob(), { content: race })]);
    expect(a.id).toBe(b.id);
    expect([a.duplicate_of, b.duplicate_of].filter((d) => d !== undefined)).toEqual([a.id]);
    expect(await rowsSaying(race)).toHaveLength(1);
  });
});
