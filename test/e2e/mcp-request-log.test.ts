import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { waitFor } from '../support/wait-for';

interface LogLine {
  msg?: string;
  keyId?: string;
  mcp?: { messages: number; methods: string[]; tools: string[] };
  req?: { id?: string; method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
}

/**
 * `/mcp` is mounted outside Nest's middleware; its requests must still reach the request log with
 * the fields every REST request has (request id, key id, status, duration) and the tools they
 * called, never arguments or results — refusals (401, 403, 413) included.
 */
describe('the MCP front door in the request log', () => {
  let api: ApiProcess;
  const team = teamFixture({ REDIS_URL: '', MCP_MAX_BATCH_MESSAGES: '10', LOG_LEVEL: 'info' });
  const secretArgument = 'Rotation runbook for the ledger: phrase orchid-velvet-7731';

  beforeAll(async () => {
    api = await startApiProcess(team.env);
  });
  afterAll(async () => api?.stop());

  const lines = (): LogLine[] =>
    api
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);
  const completed = (id: string) =>
    waitFor(
      `the log line of ${id}`,
      () => lines().find((l) => l.req?.id === id && l.res?.statusCode !== undefined),
      5_000,
    );
  const post = (body: unknown, headers: Record<string, string>, id: string) =>
    fetch(`${api.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-request-id': id,
        ...headers,
      },
      body: JSON.stringify(body),
    });

  it('logs a tool call with its request id, key id, tool name, status and duration, never its arguments', async () => {
    const rest = await fetch(`${api.url}/api/auth-check`, {
      headers: { ...bearer(team.keys.alice), 'x-request-id': 'rest-alice-1' },
    });
    expect(rest.status).toBe(200);
    const restLine = await completed('rest-alice-1');
    expect(restLine?.keyId).toMatch(/^[0-9a-f-]{36}$/);

    const mcp = await connectMcp(`${api.url}/mcp`, bearer(team.keys.alice));
    try {
      await callTool(mcp, 'memory_store', { content: secretArgument });
    } finally {
      await mcp.close();
    }
    const call = await waitFor(
      'the log line of the tool call',
      () => lines().find((l) => l.req?.url === '/mcp' && l.mcp?.tools.includes('memory_store')),
      5_000,
    );
    expect(call).toMatchObject({
      msg: 'request completed',
      keyId: restLine?.keyId,
      mcp: { messages: 1, methods: ['tools/call'], tools: ['memory_store'] },
      res: { statusCode: 200 },
    });
    expect(typeof call?.responseTime).toBe('number');
    const initialize = lines().find((l) => l.req?.url === '/mcp' && l.mcp?.methods.includes('initialize'));
    expect(initialize?.keyId).toBe(restLine?.keyId);
    expect(api.output()).not.toContain('orchid-velvet');
    expect(api.output()).not.toContain(team.keys.alice);
  });

  it('logs refusals: a wrong key (401), a foreign origin (403) and an over-sized batch (413)', async () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect((await post(list, { authorization: 'Bearer msk_wrong' }, 'mcp-401')).status).toBe(401);
    expect((await completed('mcp-401'))?.res?.statusCode).toBe(401);

    const foreign = await post(list, { ...bearer(team.keys.bob), origin: 'https://evil.example' }, 'mcp-403');
    expect(foreign.status).toBe(403);
    expect((await completed('mcp-403'))?.res?.statusCode).toBe(403);

    const batch = Array.from({ length: 11 }, (_, i) => ({ ...list, id: i + 1 }));
    expect((await post(batch, bearer(team.keys.bob), 'mcp-413')).status).toBe(413);
    const refused = await completed('mcp-413');
    expect(refused).toMatchObject({
      res: { statusCode: 413 },
      mcp: { messages: 11, methods: ['tools/list'] },
    });
    expect(refused?.keyId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
