import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { teamFixture } from '../support/e2e-env';
import { client, type JsonResponse } from '../support/http-client';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import { startApiProcess, type ApiProcess } from '../support/processes';

const WRITES = 100;

/**
 * Two API processes sharing one Redis: a key's budget is the installation's, not each replica's.
 * Writes have a budget of 100 a minute; reads are unlimited (RATE_LIMIT_PER_MINUTE=0).
 */
describe('rate limits across two API replicas sharing Redis', () => {
  const team = teamFixture({ RATE_LIMIT_WRITES_PER_MINUTE: String(WRITES) });
  let apis: ApiProcess[] = [];
  let mcp: Client | undefined;
  let n = 0;

  const store = (api: ApiProcess, key: string) =>
    client(api.url, key).post('/api/memories', { content: `Replica budget check number ${++n}` });

  beforeAll(async () => {
    apis = await Promise.all([startApiProcess(team.env), startApiProcess(team.env)]);
  });
  afterAll(async () => {
    await mcp?.close();
    await Promise.all(apis.map((api) => api.stop()));
  });

  it('accepts exactly the budget of 150 writes sent to both replicas, and refuses the rest with 429', async () => {
    const answers: JsonResponse[] = [];
    // Ten at a time, alternating replicas, so both count concurrently against the one counter.
    for (let batch = 0; batch < 15; batch++) {
      answers.push(
        ...(await Promise.all(Array.from({ length: 10 }, (_, i) => store(apis[i % 2], team.keys.alice)))),
      );
    }
    const accepted = answers.filter((a) => a.status < 300);
    const refused = answers.filter((a) => a.status === 429);
    expect(accepted).toHaveLength(WRITES);
    expect(refused).toHaveLength(150 - WRITES);
    for (const answer of refused) {
      expect(answer.body).toEqual({
        detail: expect.stringMatching(
          /^Rate limit exceeded: 100 writes per minute for this key; retry in \d+ s$/,
        ),
        code: 'rate_limited',
      });
      const retryAfter = Number(answer.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(answer.headers.get('ratelimit-limit')).toBe(String(WRITES));
      expect(answer.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(answer.headers.get('ratelimit-reset'))).toBe(retryAfter);
    }
    // Accepted writes carry the draft standard headers too, counting down across both replicas.
    const remaining = accepted.map((a) => Number(a.headers.get('ratelimit-remaining')));
    expect(new Set(remaining).size).toBe(WRITES);
    expect(Math.min(...remaining)).toBe(0);
  });

  it('leaves another key, and the same key’s reads, alone', async () => {
    for (const api of apis) {
      expect((await store(api, team.keys.bob)).status).toBeLessThan(300);
      expect((await client(api.url, team.keys.alice).get('/api/memories?limit=1')).status).toBe(200);
    }
  });

  it('counts MCP tool calls against the same budgets: a write tool is refused as a tool error, a read tool runs', async () => {
    mcp = await connectMcp(`${apis[1].url}/mcp`, bearer(team.keys.alice));
    const refused = await callTool(mcp, 'memory_store', { content: 'One write too many, over MCP' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(
      /^Rate limit exceeded: 100 writes per minute for this key; retry in \d+ s \[rate_limited\]/,
    );
    const read = await callTool(mcp, 'memory_count', {});
    expect(read.isError).toBeFalsy();
    // Bob's write budget is his own, over MCP as over REST.
    const bob = await connectMcp(`${apis[0].url}/mcp`, bearer(team.keys.bob));
    try {
      const stored = await callTool(bob, 'memory_store', { content: 'Bob still has budget left' });
      expect(stored.isError).toBeFalsy();
    } finally {
      await bob.close();
    }
  });
});
