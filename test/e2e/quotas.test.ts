import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { waitFor } from '../support/wait-for';

interface Usage {
  tenant: string;
  memories: { used: number; limit: number | null };
  memory_bytes: { used: number; limit: number | null };
  sessions_today: { used: number; limit: number | null; resets_at: string };
}

/** Per-tenant quotas through the front door: REST, MCP and GET /api/usage. */
describe('tenant quotas', () => {
  const team = teamFixture({
    QUOTA_MAX_MEMORIES: '3',
    QUOTA_MAX_MEMORY_BYTES: '200',
    QUOTA_MAX_SESSIONS_PER_DAY: '2',
  });
  let api: ApiProcess;
  let database: pg.Client;
  let mcp: Client | undefined;
  const alice = () => client(api.url, team.keys.alice);
  const bob = () => client(api.url, team.keys.bob);
  const usage = async () => (await bob().get<Usage>('/api/usage')).body;

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    database = new pg.Client({ connectionString: inject('databaseUrl') });
    await database.connect();
  });
  afterAll(async () => {
    await mcp?.close();
    await api?.stop();
    await database?.end();
  });

  it('GET /api/usage shows the tenant’s use against each quota, for any key', async () => {
    const res = await alice().get<Usage>('/api/usage');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      tenant: team.tenant,
      memories: { used: 0, limit: 3 },
      memory_bytes: { used: 0, limit: 200 },
      sessions_today: { used: 0, limit: 2, resets_at: expect.stringMatching(/T00:00:00\.000Z$/) },
    });
    expect(Date.parse(res.body.sessions_today.resets_at) - Date.now()).toBeLessThanOrEqual(86_400_000);
    expect((await client(api.url).get('/api/usage')).status).toBe(401);
  });

  it('refuses content past the bytes quota with 413 storage_quota_exceeded, naming the use', async () => {
    expect((await alice().post('/api/memories', { content: 'a'.repeat(80) })).status).toBeLessThan(300);
    expect((await bob().post('/api/memories', { content: 'b'.repeat(80) })).status).toBeLessThan(300);
    const refused = await alice().post('/api/memories', { content: 'c'.repeat(41) });
    expect(refused.status).toBe(413);
    expect(refused.body).toEqual({
      detail: expect.stringMatching(/Storage quota exceeded: .*hold 160 of 200 bytes and this write adds 41/),
      code: 'storage_quota_exceeded',
    });
    expect(await usage()).toMatchObject({ memories: { used: 2 }, memory_bytes: { used: 160 } });
  });

  it('refuses a memory past the count quota with 429 quota_exceeded, over REST and MCP', async () => {
    expect((await alice().post('/api/memories', { content: 'the third memory' })).status).toBeLessThan(300);
    const refused = await bob().post('/api/memories', { content: 'one memory too many' });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      detail: expect.stringMatching(/Memory quota reached: the team stores 3 of 3 memories/),
      code: 'quota_exceeded',
    });
    mcp = await connectMcp(`${api.url}/mcp`, bearer(team.keys.alice));
    const tool = await callTool(mcp, 'memory_store', { content: 'one memory too many, over MCP' });
    expect(tool.isError).toBe(true);
    expect(tool.text).toMatch(/stores 3 of 3 memories.*\[quota_exceeded\]/s);
    expect(await usage()).toMatchObject({ memories: { used: 3, limit: 3 }, memory_bytes: { used: 176 } });
  });

  it('refuses a session past the sessions-per-day quota with 429 and Retry-After', async () => {
    for (let i = 0; i < 2; i++) {
      expect((await alice().post('/api/sessions', { agent: 'claude-code' })).status).toBe(200);
    }
    const refused = await bob().post('/api/sessions', { agent: 'claude-code' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      code: 'quota_exceeded',
      detail: expect.stringMatching(/started 2 of 2 sessions today \(UTC\)/),
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect((await usage()).sessions_today).toMatchObject({ used: 2, limit: 2 });
  });

  it('takes the tenant’s own quota over the configured default (0 = unlimited)', async () => {
    await database.query(`UPDATE tenants SET max_memories = 0, max_memory_bytes = 1000 WHERE slug = $1`, [
      team.tenant,
    ]);
    // Keys are verified again within seconds (the verified-key cache), and with them the quotas.
    const stored = await waitFor(
      'the tenant’s own quota to apply',
      async () => {
        const res = await alice().post('/api/memories', { content: 'past the default, within our own' });
        return res.status < 300 ? res : undefined;
      },
      15_000,
      500,
    );
    expect(stored.status).toBeLessThan(300);
    expect((await alice().get<Usage>('/api/usage')).body).toMatchObject({
      memories: { used: 4, limit: null },
      memory_bytes: { used: 208, limit: 1000 },
      sessions_today: { limit: 2 },
    });
  });
});
