import { randomUUID } from 'node:crypto';
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

/** Runs `count` tasks, `concurrency` at a time; returns their results in order. */
async function pool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const lanes = Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  });
  await Promise.all(lanes);
  return results;
}

describe('an update right after its store, while workers index the memory', () => {
  let api: ApiProcess;
  let workers: WorkerProcess[] = [];
  // The API's relay is woken at commit: the index job runs while the update arrives.
  const team = teamFixture({ OUTBOX_POLL_INTERVAL_MS: '50', WORKER_CONCURRENCY: '8' });

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    workers = await Promise.all([startWorkerProcess(team.env), startWorkerProcess(team.env)]);
  });

  afterAll(async () => {
    await Promise.all([api, ...workers].filter(Boolean).map((p) => p.stop()));
  });

  it('answers 200 to all 200 REST updates (no deadlock surfaces as a 500)', async () => {
    const alice = client(api.url, team.keys.alice);
    const statuses = await pool(200, 20, async (i) => {
      const stored = await alice.post<{ id: number }>('/api/memories', {
        content: `race ${i} ${randomUUID()}`,
        tags: ['race'],
      });
      expect(stored.status, JSON.stringify(stored.body)).toBe(200);
      const updated = await alice.put(`/api/memories/${stored.body.id}`, {
        content: `race ${i} updated ${randomUUID()}`,
      });
      return updated.status === 200 ? 200 : `${updated.status} ${JSON.stringify(updated.body)}`;
    });
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it('answers every MCP memory_update without an error result', async () => {
    const sessions = await Promise.all(
      Array.from({ length: 20 }, () => connectMcp(`${api.url}/mcp`, bearer(team.keys.alice))),
    );
    try {
      const failures = await pool(200, 20, async (i) => {
        const mcp = sessions[i % sessions.length];
        const stored = await callTool(mcp, 'memory_store', { content: `mcp race ${i} ${randomUUID()}` });
        expect(stored.isError, stored.text).toBeFalsy();
        const id = (stored.structuredContent as { id: number }).id;
        const updated = await callTool(mcp, 'memory_update', {
          id,
          content: `mcp race ${i} updated ${randomUUID()}`,
        });
        return updated.isError ? updated.text : null;
      });
      expect(failures.filter((f) => f !== null)).toEqual([]);
    } finally {
      await Promise.all(sessions.map((s) => s.close()));
    }
  });
});
