import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { teamFixture } from '../support/e2e-env';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import { ROOT, startApiProcess, type ApiProcess } from '../support/processes';
import { startRoundRobinProxy, type RoundRobinProxy } from '../support/round-robin-proxy';
import { waitFor } from '../support/wait-for';

/** The MCP Inspector's command-line mode (devDependency @modelcontextprotocol/inspector-cli). */
const INSPECTOR_CLI = process.env.MCP_INSPECTOR_CLI ?? resolve(ROOT, 'node_modules/.bin/mcp-inspector-cli');

describe('MCP across two API processes behind a round-robin proxy (no sticky sessions)', () => {
  const team = teamFixture();
  let apis: ApiProcess[] = [];
  let proxy: RoundRobinProxy;
  let mcpUrl: string;
  let alice: Client;

  beforeAll(async () => {
    apis = await Promise.all([startApiProcess(team.env), startApiProcess(team.env)]);
    proxy = await startRoundRobinProxy(apis.map((api) => api.url));
    mcpUrl = `${proxy.url}/mcp`;
    alice = await connectMcp(mcpUrl, bearer(team.keys.alice));
    // After initializing, the SDK client tries a standalone SSE stream (GET → 405); let it land first.
    await waitFor('the SSE probe', () =>
      proxy.log.find((entry) => entry.method === 'GET' && entry.status > 0),
    );
  });
  afterAll(async () => {
    await alice?.close();
    await proxy?.close();
    await Promise.all(apis.map((api) => api.stop()));
  });

  it('initialized on one replica, the session keeps working on the other', () => {
    // initialize, notifications/initialized, then the SSE probe that a stateless server declines
    expect(proxy.log.map(({ method, status }) => [method, status])).toEqual([
      ['POST', 200],
      ['POST', 202],
      ['GET', 405],
    ]);
    expect(proxy.log[0].backend).not.toBe(proxy.log[1].backend);
  });

  it('alternates one client’s consecutive calls between the replicas, and every call succeeds', async () => {
    const from = proxy.log.length;
    const stored = await callTool(alice, 'memory_store', {
      content: 'Replica check: deploys go through Argo CD',
    });
    const id = (stored.structuredContent as { id: number }).id;
    const results = [stored];
    for (const [name, args] of [
      ['memory_get', { id }],
      ['memory_update', { id, importance: 0.8 }],
      ['memory_recall', { context: 'Argo CD deploys' }],
      ['memory_list', {}],
      ['memory_count', {}],
      ['memory_check', { content: 'Replica check: deploys go through Argo CD' }],
      ['memory_delete', { id }],
      ['memory_restore', { id }],
      ['startup_context', {}],
    ] as const) {
      results.push(await callTool(alice, name, args));
    }
    for (const result of results) expect(result.isError, result.text).toBeFalsy();
    expect((results[3].structuredContent as { memories: Array<{ id: number }> }).memories[0]?.id).toBe(id);

    const calls = proxy.log.slice(from);
    expect(calls).toHaveLength(results.length);
    expect(calls.every((call) => call.status === 200)).toBe(true); // never 404 "session not found"
    calls.slice(1).forEach((call, i) => expect(call.backend).not.toBe(calls[i].backend));
  });

  describe('the official MCP Inspector in CLI mode', () => {
    const inspect = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          INSPECTOR_CLI,
          '--cli',
          mcpUrl,
          '--transport',
          'http',
          '--header',
          `Authorization: Bearer ${team.keys.bob}`,
          ...args,
        ],
        { timeout: 60_000 },
      );
      return JSON.parse(stdout) as Record<string, unknown>;
    };

    it('lists the tools', async () => {
      const { tools } = (await inspect('--method', 'tools/list')) as { tools: Array<{ name: string }> };
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['memory_store', 'memory_recall']),
      );
    });

    it('calls a tool', async () => {
      const stored = await inspect(
        '--method',
        'tools/call',
        '--tool-name',
        'memory_store',
        '--tool-arg',
        'content=Stored through the MCP Inspector',
        '--tool-arg',
        'importance=0.7',
      );
      expect(stored).toMatchObject({ structuredContent: { id: expect.any(Number), importance: 0.7 } });
      const counted = await inspect('--method', 'tools/call', '--tool-name', 'memory_count');
      expect(counted).toMatchObject({ structuredContent: { total: 1 } });
    });
  });
});
