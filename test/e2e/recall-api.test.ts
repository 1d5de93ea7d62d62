import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http-client';
import { teamFixture } from '../support/e2e-env';
import {
  startApiProcess,
  startWorkerProcess,
  type ApiProcess,
  type WorkerProcess,
} from '../support/processes';
import { waitFor } from '../support/wait-for';

type Recalled = {
  id: number;
  content: string;
  rank: number;
  owner: string;
  explain?: {
    text_rank: number | null;
    vector_rank: number | null;
    vector_score: number | null;
    text_coverage: number | null;
    leg_weights: { text: number; vector: number };
    filters: string[];
    model: string | null;
    evidence: string;
    vector_floor: number | null;
  };
};
type RecallAnswer = { memories: Recalled[] };

describe('recall, check and duplicates (built API + worker, real model, Postgres + Redis)', () => {
  const team = teamFixture();
  let api: ApiProcess;
  let worker: WorkerProcess;
  let alice: ReturnType<typeof client>;
  let bob: ReturnType<typeof client>;
  const ids: Record<string, number> = {};

  const store = async (name: string, body: Record<string, unknown>) => {
    const res = await alice.post<{ id: number }>('/api/memories', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids[name] = res.body.id;
  };
  const recall = (who: ReturnType<typeof client>, body: Record<string, unknown>) =>
    who.post<RecallAnswer>('/api/memories/recall', { explain: true, ...body });
  const embedded = (id: number, query: string) =>
    waitFor(
      `memory ${id} embedded`,
      async () => {
        const res = await recall(alice, { context: query, limit: 20 });
        const hit = res.body.memories.find((m) => m.id === id);
        return hit?.explain?.vector_rank != null ? hit : undefined;
      },
      60_000,
      250,
    );

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    worker = await startWorkerProcess(team.env);
    alice = client(api.url, team.keys.alice);
    bob = client(api.url, team.keys.bob);
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
  });

  it('finds a memory by text immediately after it is stored', async () => {
    await store('helm', {
      content: 'We deploy the billing service with Helm charts on Kubernetes',
      tags: 'deploy',
      project: 'billing',
      category: 'decisions',
    });
    const res = await recall(alice, { context: 'Helm charts' });
    expect(res.status).toBe(200);
    const hit = res.body.memories.find((m) => m.id === ids.helm);
    expect(hit).toMatchObject({ owner: 'alice', content: expect.stringContaining('Helm') });
    expect(hit?.explain?.text_rank).toBe(1);
    // Both query words are in it: it holds the whole query. The legs' weights keep their configured sum.
    expect(hit?.explain?.text_coverage).toBeCloseTo(1, 9);
    const weights = hit?.explain?.leg_weights;
    expect((weights?.text ?? 0) + (weights?.vector ?? 0)).toBeCloseTo(1, 9);
    // A query word no memory holds is part of the query it does not cover.
    const partial = await recall(alice, { context: 'Helm charts billing pipelines' });
    const covered = partial.body.memories.find((m) => m.id === ids.helm)?.explain?.text_coverage;
    expect(covered).toBeGreaterThan(0);
    expect(covered).toBeLessThan(1);
  });

  it('finds a memory by meaning once the worker has embedded it (no shared words)', async () => {
    await store('car', { content: 'Alice purchased a new automobile last week', importance: 0.6 });
    await store('db', { content: 'The staging database runs PostgreSQL 15 with pgvector', tags: 'db' });
    await store('style', {
      content: 'Prefer small pull requests with focused commits',
      category: 'preferences',
    });
    await embedded(ids.car, 'automobile');
    const res = await recall(alice, { context: 'bought car', limit: 5 });
    expect(res.body.memories[0]).toMatchObject({ id: ids.car });
    expect(res.body.memories[0].explain).toMatchObject({
      text_rank: null,
      vector_rank: 1,
      model: 'use-lite-512d',
      // No query word is in any memory: found by meaning alone, past the model's floor.
      evidence: 'vector',
      vector_floor: 0.4,
    });
    expect(res.body.memories[0].explain?.vector_score).toBeGreaterThanOrEqual(0.4);
    // A query word matches: no floor applies, and the evidence says which legs found it.
    const worded = await recall(alice, { context: 'new automobile', limit: 5 });
    expect(worded.body.memories[0]).toMatchObject({ id: ids.car });
    expect(worded.body.memories[0].explain).toMatchObject({ evidence: 'text+vector', vector_floor: null });
  });

  it('never returns another user’s memories', async () => {
    await bob.post('/api/memories', { content: 'Bob keeps his Helm notes private' });
    const bobs = await recall(bob, { context: 'Helm charts Kubernetes deploy', limit: 50 });
    expect(bobs.body.memories.every((m) => m.owner === 'bob')).toBe(true);
    const alices = await recall(alice, { context: 'Helm notes private', limit: 50 });
    expect(alices.body.memories.every((m) => m.owner === 'alice')).toBe(true);
  });

  it('applies filters to both legs and says which in explain', async () => {
    const byTag = await recall(alice, { context: 'database deploy', tags: 'db', limit: 20 });
    expect(byTag.body.memories.map((m) => m.id)).toEqual([ids.db]);
    expect(byTag.body.memories[0].explain?.filters).toEqual(['tags∋db']);
    const byProject = await recall(alice, { context: 'service', project: 'billing' });
    expect(byProject.body.memories.map((m) => m.id)).toEqual([ids.helm]);
    const future = await recall(alice, { context: 'Helm', since: '2999-01-01T00:00:00Z' });
    expect(future.body.memories).toEqual([]);
    const byCategory = await recall(alice, { context: 'pull requests', category: 'preferences' });
    expect(byCategory.body.memories.map((m) => m.id)).toEqual([ids.style]);
  });

  it('sorts by recency or importance when asked, and clamps the limit', async () => {
    const recent = await recall(alice, { context: 'anything at all', sort_by: 'recency', limit: 100 });
    const created = recent.body.memories.map((m) => m.id);
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const big = await recall(alice, { context: 'service database', limit: 5000 });
    expect(big.status).toBe(200);
    expect(big.body.memories.length).toBeLessThanOrEqual(100);
  });

  it('rejects bad recall input with 422', async () => {
    for (const body of [
      {},
      { context: '' },
      { context: 'x', limit: 0 },
      { context: 'x', sort_by: 'random' },
      { context: 'x', since: 'yesterday' },
    ]) {
      const res = await alice.post('/api/memories/recall', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
  });

  it('refuses a project no memory can have with the store’s 422 and message, on every project filter', async () => {
    const project = 'p'.repeat(201);
    const stored = await alice.post('/api/memories', { content: 'never stored', project });
    expect(stored).toMatchObject({
      status: 422,
      body: { code: 'validation_failed', detail: 'project: project is at most 200 characters' },
    });
    for (const res of [
      await alice.post('/api/memories/recall', { context: 'anything', project }),
      await alice.get(`/api/context/startup?project=${project}`),
    ]) {
      expect({ status: res.status, body: res.body }).toEqual({ status: stored.status, body: stored.body });
    }
    // A list's query answers 400 for any of its parameters (docs/api.md), with the same message.
    expect(await alice.get(`/api/memories?project=${project}`)).toMatchObject({
      status: 400,
      body: stored.body,
    });
    const boost = await alice.post('/api/memories/recall', { context: 'anything', project_boost: project });
    expect(boost.body).toEqual({
      code: 'validation_failed',
      detail: 'project_boost: project is at most 200 characters',
    });
    // 200 characters is a project like any other; a remote URL is compared as its identity.
    expect(
      (await alice.post('/api/memories/recall', { context: 'x', project: 'p'.repeat(200) })).status,
    ).toBe(200);
  });

  it('guards writes: exact content is NOOP, unrelated content is ADD', async () => {
    const same = await alice.post('/api/memories/check', {
      content: 'Prefer small pull requests with focused commits',
    });
    expect(same.body).toEqual({
      action: 'NOOP',
      match: { id: ids.style, similarity: 1, content: expect.any(String) },
    });
    await embedded(ids.style, 'pull requests');
    const close = await alice.post<{ action: string; match?: { id: number; similarity: number } }>(
      '/api/memories/check',
      {
        content: 'Prefer small pull requests with focused commit messages',
      },
    );
    expect(['UPDATE', 'NOOP']).toContain(close.body.action);
    expect(close.body.match?.id).toBe(ids.style);
    const unrelated = await alice.post<{ action: string }>('/api/memories/check', {
      content: 'Bananas are yellow tropical fruit',
    });
    expect(unrelated.body.action).toBe('ADD');
    expect(
      (
        await bob.post<{ action: string }>('/api/memories/check', {
          content: 'Prefer small pull requests with focused commits',
        })
      ).body.action,
    ).toBe('ADD');
  });

  it('lists near-duplicate pairs among the caller’s memories', async () => {
    await store('dup1', { content: 'The nightly backup job runs at two in the morning' });
    await store('dup2', { content: 'The nightly backup job runs at 2 in the morning' });
    await embedded(ids.dup2, 'nightly backup');
    await embedded(ids.dup1, 'nightly backup');
    const res = await alice.get<{
      pairs: Array<{ a: { id: number }; b: { id: number }; similarity: number }>;
    }>('/api/memories/duplicates?threshold=0.9');
    expect(res.status).toBe(200);
    const pair = res.body.pairs.find(
      (p) => [p.a.id, p.b.id].sort().join() === [ids.dup1, ids.dup2].sort().join(),
    );
    expect(pair?.similarity).toBeGreaterThan(0.9);
    expect((await bob.get<{ pairs: unknown[] }>('/api/memories/duplicates')).body.pairs).toEqual([]);
    expect((await alice.get('/api/memories/duplicates?threshold=7')).status).toBe(400);
  });
});
