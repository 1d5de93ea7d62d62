import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { startApiProcess, type ApiProcess } from '../support/processes';

const LIMIT = 20;

describe('the per-key rate limit', () => {
  let api: ApiProcess;
  const team = teamFixture({
    RATE_LIMIT_PER_MINUTE: String(LIMIT),
    REDIS_URL: '',
    MCP_MAX_BATCH_MESSAGES: '30',
  });

  const get = (authorization?: string) =>
    fetch(`${api.url}/api/auth-check`, { headers: authorization === undefined ? {} : { authorization } });

  beforeAll(async () => {
    api = await startApiProcess(team.env);
  });

  afterAll(async () => {
    await api?.stop();
  });

  it('counts a key however its header is spelled, and leaves other keys alone', async () => {
    const key = team.keys.alice;
    for (let i = 0; i < LIMIT; i++) expect((await get(`Bearer ${key}`)).status).toBe(200);
    for (const spelling of [
      `Bearer ${key}`,
      `bearer ${key}`,
      `BEARER ${key}`,
      `Bearer  ${key}`,
      `Bearer\t${key}`,
    ]) {
      const res = await get(spelling);
      expect(res.status, JSON.stringify(spelling)).toBe(429);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await res.json()).toMatchObject({ code: 'rate_limited' });
    }
    expect((await get(`Bearer ${team.keys.bob}`)).status).toBe(200);
  });

  it('throttles many different wrong keys from one address as one client', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 10; i++) {
      statuses.push((await get(`Bearer wrong-${randomBytes(8).toString('hex')}`)).status);
    }
    expect(statuses.slice(0, LIMIT).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(LIMIT)).toEqual(new Array(10).fill(429));
  });

  it('counts every call of an MCP JSON-RPC batch against the budget', async () => {
    const batch = (size: number, key: string) =>
      fetch(`${api.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(
          Array.from({ length: size }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/list' })),
        ),
      });
    // Bob has used 1 of his budget (previous test); a batch bigger than the rest is refused, and
    // counts as one request, not as the messages it holds.
    const refused = await batch(LIMIT, team.keys.bob);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    const bobAfter = await get(`Bearer ${team.keys.bob}`);
    expect(bobAfter.status).toBe(200);
    expect(Number(bobAfter.headers.get('ratelimit-remaining'))).toBe(LIMIT - 3);
    // A batch over MCP_MAX_BATCH_MESSAGES is refused whole (413) and counts nothing.
    const oversized = await batch(31, team.keys.admin);
    expect(oversized.status).toBe(413);
    expect(await oversized.json()).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32600, message: expect.stringContaining('at most 30 messages') },
    });
    // The admin's budget is untouched: a batch of 5 passes and uses 5.
    expect((await batch(5, team.keys.admin)).status).not.toBe(429);
    const after = await get(`Bearer ${team.keys.admin}`);
    expect(after.status).toBe(200);
    expect(Number(after.headers.get('ratelimit-remaining'))).toBe(LIMIT - 6);
  });

  it('gives near-duplicate scans their own, smaller budget', async () => {
    const duplicates = () =>
      fetch(`${api.url}/api/memories/duplicates`, {
        headers: { authorization: `Bearer ${team.keys.admin}` },
      });
    for (let i = 0; i < 10; i++) expect((await duplicates()).status).toBe(200);
    const refused = await duplicates();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    // The general budget is apart: the admin has used 6 of it (above), and 1 more now.
    const other = await get(`Bearer ${team.keys.admin}`);
    expect(other.status).toBe(200);
    expect(Number(other.headers.get('ratelimit-remaining'))).toBe(LIMIT - 7);
  });
});
