import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { startApi, type StartedApi } from '../../apps/api/src/main';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { waitFor } from '../support/wait-for';

interface Listed {
  id: number;
  content: string;
  branch?: string;
}

/**
 * Branch-scoped memories through the API (in-process queue: the API applies code events itself):
 * served by recall and the startup context on their branch only, the project's after a merge,
 * deleted (restorably) with their branch.
 */
describe('a memory of a feature branch stays on that branch until it is merged', () => {
  const team = teamFixture({ REDIS_URL: '', DEFAULT_VISIBILITY: 'team' });
  const project = `github.com/acme/b${randomUUID().slice(0, 8)}`;
  const encoded = encodeURIComponent(project);
  let api: StartedApi;
  const alice = () => client(api.url, team.keys.alice);
  const bob = () => client(api.url, team.keys.bob);
  const recallIds = async (who: ReturnType<typeof client>, context: string, branch?: string) => {
    const res = await who.post<{ memories: Listed[] }>('/api/memories/recall', {
      context,
      ...(branch ? { tree: { repo: project, branch, paths: [] } } : {}),
    });
    expect(res.status).toBe(200);
    return res.body.memories.map((m) => m.id);
  };
  const startupIds = async (branch?: string) => {
    const query = `project=${encoded}&budget=8000${branch ? `&branch=${encodeURIComponent(branch)}` : ''}`;
    const res = await alice().get<{ sections: Record<string, Array<{ id: number }>> }>(
      `/api/context/startup?${query}`,
    );
    expect(res.status).toBe(200);
    return Object.values(res.body.sections).flatMap((items) => items.map((m) => m.id));
  };
  const applied = (id: number) =>
    waitFor('the event to be applied', async () => {
      const res = await alice().get<{ applied_at: string | null; branch_memories: number | null }>(
        `/api/code-events/${id}`,
      );
      return res.body.applied_at ? res.body : undefined;
    });

  beforeAll(async () => {
    api = await startApi(loadConfig({ ...team.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error' }));
  });
  afterAll(async () => api?.stop());

  it('is served on its branch only, and to the whole project once the branch is merged', async () => {
    const stored = await alice().post<{ id: number }>('/api/memories', {
      content: 'Charge retries use exponential backoff with jitter on the retry branch',
      project,
      branch: 'feature/retry',
      importance: 0.9,
      category: 'decisions',
    });
    expect(stored.status).toBe(200);
    const id = stored.body.id;
    expect((await alice().get<Listed>(`/api/memories/${id}`)).body.branch).toBe('feature/retry');

    const query = 'charge retries exponential backoff jitter';
    expect(await recallIds(alice(), query)).not.toContain(id);
    expect(await recallIds(alice(), query, 'main')).not.toContain(id);
    expect(await recallIds(alice(), query, 'feature/retry')).toContain(id);
    expect(await recallIds(bob(), query, 'feature/retry')).toContain(id);
    expect(await startupIds()).not.toContain(id);
    expect(await startupIds('main')).not.toContain(id);
    expect(await startupIds('feature/retry')).toContain(id);

    const merged = await alice().post<{ id: number }>(
      `/api/projects/${encoded}/branches/${encodeURIComponent('feature/retry')}/promote`,
      {},
    );
    expect(merged.status).toBe(202);
    expect((await applied(merged.body.id)).branch_memories).toBe(1);
    expect((await alice().get<Listed>(`/api/memories/${id}`)).body.branch).toBeUndefined();
    expect(await recallIds(bob(), query)).toContain(id);
    expect(await startupIds('main')).toContain(id);
  });

  it('a CI merge event promotes; a deleted branch deletes its memories, which can be restored', async () => {
    const merged = await alice().post<{ id: number }>('/api/memories', {
      content: 'Ledger exports stream CSV in pages of one thousand rows',
      project,
      branch: 'feature/export',
    });
    const dropped = await alice().post<{ id: number }>('/api/memories', {
      content: 'The spike branch tried an in-memory ledger cache',
      project,
      branch: 'spike/cache',
    });
    // Bob's memories of the same branches: his team one follows the merge, his private one is his alone.
    const bobsTeam = await bob().post<{ id: number }>('/api/memories', {
      content: 'Export pages are signed with the ledger key',
      project,
      branch: 'feature/export',
    });
    const bobsPrivate = await bob().post<{ id: number }>('/api/memories', {
      content: 'My notes on the export branch',
      project,
      branch: 'feature/export',
      visibility: 'private',
    });
    const bobsSpike = await bob().post<{ id: number }>('/api/memories', {
      content: 'The cache spike measured a 3x speedup',
      project,
      branch: 'spike/cache',
    });
    const event = await alice().post<{ id: number }>('/api/code-events', {
      repo: project,
      branch: 'feature/export',
      merged: true,
    });
    expect(event.status).toBe(202);
    expect((await applied(event.body.id)).branch_memories).toBe(2);
    expect((await bob().get<Listed>(`/api/memories/${bobsTeam.body.id}`)).body.branch).toBeUndefined();
    expect((await bob().get<Listed>(`/api/memories/${bobsPrivate.body.id}`)).body.branch).toBe(
      'feature/export',
    );
    expect(await recallIds(alice(), 'ledger exports stream CSV pages')).toContain(merged.body.id);

    const deleted = await alice().request<{ id: number }>(
      'DELETE',
      `/api/projects/${encoded}/branches/${encodeURIComponent('spike/cache')}`,
    );
    expect(deleted.status).toBe(202);
    // A member's key drops only the member's own memories of the branch; a teammate's stay.
    expect((await applied(deleted.body.id)).branch_memories).toBe(1);
    expect((await bob().get(`/api/memories/${bobsSpike.body.id}`)).status).toBe(200);
    expect((await alice().get(`/api/memories/${dropped.body.id}`)).status).toBe(404);
    expect((await alice().post(`/api/memories/${dropped.body.id}/restore`, {})).status).toBe(200);
    const restored = (await alice().get<Listed>(`/api/memories/${dropped.body.id}`)).body;
    expect(restored.branch).toBe('spike/cache');
  });

  it('a correction on a branch replaces its memory on that branch only; elsewhere the original is served', async () => {
    const original = await alice().post<{ id: number }>('/api/memories', {
      content: 'Invoices are numbered per tenant and year',
      project,
      importance: 0.9,
      category: 'decisions',
    });
    const correction = await alice().post<{ id: number }>('/api/memories', {
      content: 'Invoices are numbered per tenant, year and series',
      project,
      importance: 0.9,
      category: 'decisions',
      branch: 'feature/series',
      supersedes: original.body.id,
    });
    expect(correction.status).toBe(200);
    const query = 'invoices numbered per tenant year';
    expect(await recallIds(alice(), query)).toContain(original.body.id);
    expect(await recallIds(alice(), query)).not.toContain(correction.body.id);
    const onBranch = await recallIds(alice(), query, 'feature/series');
    expect(onBranch).toContain(correction.body.id);
    expect(onBranch).not.toContain(original.body.id);
    expect(await startupIds('main')).toContain(original.body.id);
    expect(await startupIds('feature/series')).toContain(correction.body.id);
  });

  it('refuses a branch without a project, a bad branch name, and a merge event without a branch (422)', async () => {
    const noProject = await alice().post<{ detail: string }>('/api/memories', {
      content: 'A branch of nothing',
      branch: 'feature/x',
    });
    expect(noProject.status).toBe(422);
    expect(noProject.body.detail).toContain('branch needs project');
    const badName = await alice().post('/api/memories', { content: 'Bad name', project, branch: 'a..b' });
    expect(badName.status).toBe(422);
    const noBranch = await alice().post('/api/code-events', { repo: project, merged: true });
    expect(noBranch.status).toBe(422);
    const nothing = await alice().post('/api/code-events', { repo: project });
    expect(nothing.status).toBe(422);
  });
});
