import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http-client';
import { teamFixture } from '../support/e2e-env';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { waitFor } from '../support/wait-for';

/** A small install: Postgres but no Redis. The API runs the job handlers itself (in-process queue). */
describe('API with DATABASE_URL and no REDIS_URL', () => {
  const team = teamFixture({ REDIS_URL: '' });
  let api: ApiProcess;

  beforeAll(async () => {
    api = await startApiProcess(team.env);
  });
  afterAll(async () => {
    await api?.stop();
  });

  it('starts, stores, and embeds memories in-process so recall finds them by meaning', async () => {
    const alice = client(api.url, team.keys.alice);
    const stored = await alice.post<{ id: number }>('/api/memories', {
      content: 'The physician prescribed rest',
    });
    expect(stored.status).toBe(200);
    const hit = await waitFor(
      'in-process embedding',
      async () => {
        const res = await alice.post<{
          memories: Array<{ id: number; explain: { vector_rank: number | null } }>;
        }>('/api/memories/recall', { context: 'doctor', explain: true });
        return res.body.memories.find((m) => m.id === stored.body.id && m.explain.vector_rank !== null);
      },
      30_000,
      200,
    );
    expect(hit.explain.vector_rank).toBe(1);
  });
});
