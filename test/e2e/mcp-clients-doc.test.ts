import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { startApi, type StartedApi } from '../../apps/api/src/main';
import { teamFixture } from '../support/e2e-env';
import { callTool, connectMcp } from '../support/mcp-client';
import { ROOT } from '../support/processes';

/** docs/mcp-clients.md uses this address; the test swaps in the started server's. */
const DOC_BASE = 'https://memory.example.com';
const doc = readFileSync(resolve(ROOT, 'docs/mcp-clients.md'), 'utf8');
const blocks = [...doc.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map(([, lang, body]) => ({ lang, body }));

function block(lang: string, marker: string): string {
  const found = blocks.find((b) => b.lang === lang && b.body.includes(marker));
  if (!found) throw new Error(`docs/mcp-clients.md has no ${lang} block containing ${marker}`);
  return found.body;
}

/** "Name: value" → { Name: value }. */
function headerPair(text: string): Record<string, string> {
  const colon = text.indexOf(':');
  return { [text.slice(0, colon).trim()]: text.slice(colon + 1).trim() };
}

interface ClientSetup {
  readonly url: string;
  readonly headers: Record<string, string>;
}

/** What each documented client would send, with the placeholders resolved as the client would. */
function documentedSetups(key: string): Record<string, ClientSetup> {
  const env: Record<string, string> = { MEMORY_API_KEY: key };

  const claude = /claude mcp add --transport http memory (\S+) --header "([^"]+)"/.exec(
    block('bash', 'claude mcp add'),
  );
  const cursor = JSON.parse(block('json', '"mcpServers"')).mcpServers.memory;
  const vscode = JSON.parse(block('json', '"servers"'));
  const codexToml = block('toml', 'mcp_servers.memory');
  const codexVar = /bearer_token_env_var = "(\w+)"/.exec(codexToml)?.[1] ?? '';
  const remote = JSON.parse(block('json', 'mcp-remote')).mcpServers.memory;
  const remoteArgs: string[] = remote.args.map((arg: string) =>
    arg.replace(/\$\{(\w+)\}/g, (_, name: string) => remote.env[name].replace('msk_...', key)),
  );

  expect(claude, 'Claude Code snippet').not.toBeNull();
  expect(vscode.inputs[0]).toMatchObject({ id: 'memory-key', password: true });
  expect(vscode.servers.memory.type).toBe('http');
  expect(block('bash', 'codex mcp add')).toContain(`--bearer-token-env-var ${codexVar}`);
  expect(remoteArgs).toContain('http-only');

  return {
    'Claude Code': {
      url: claude?.[1] ?? '',
      headers: headerPair((claude?.[2] ?? '').replace('$MEMORY_API_KEY', key)),
    },
    Cursor: {
      url: cursor.url,
      headers: { Authorization: cursor.headers.Authorization.replace('${env:MEMORY_API_KEY}', key) },
    },
    'Codex CLI': {
      url: /url = "([^"]+)"/.exec(codexToml)?.[1] ?? '',
      headers: { Authorization: `Bearer ${env[codexVar]}` },
    },
    'VS Code': {
      url: vscode.servers.memory.url,
      headers: {
        Authorization: vscode.servers.memory.headers.Authorization.replace('${input:memory-key}', key),
      },
    },
    'mcp-remote': {
      url: remoteArgs.find((arg) => arg.startsWith(DOC_BASE)) ?? '',
      headers: headerPair(remoteArgs[remoteArgs.indexOf('--header') + 1]),
    },
  };
}

describe('the client snippets in docs/mcp-clients.md connect (SDK client, same URL and headers)', () => {
  const team = teamFixture();
  let api: StartedApi;

  beforeAll(async () => {
    api = await startApi(loadConfig({ ...team.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error' }));
  });
  afterAll(async () => api?.stop());

  it.each(['Claude Code', 'Cursor', 'Codex CLI', 'VS Code', 'mcp-remote'])('%s', async (name) => {
    const setup = documentedSetups(team.keys.alice)[name];
    expect(setup.url).toBe(`${DOC_BASE}/mcp`);
    expect(setup.headers).toEqual({ Authorization: `Bearer ${team.keys.alice}` });
    const client = await connectMcp(setup.url.replace(DOC_BASE, api.url), setup.headers);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('startup_context');
      expect((await callTool(client, 'memory_count')).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('the curl check answers tools/list', async () => {
    const curl = block('bash', 'curl -s');
    const headers = Object.assign(
      {},
      ...[...curl.matchAll(/-H (?:"([^"]+)"|'([^']+)')/g)].map(([, a, b]) =>
        headerPair((a ?? b).replace('$MEMORY_API_KEY', team.keys.alice)),
      ),
    );
    const body = /-d '([^']+)'/.exec(curl)?.[1];
    const res = await fetch(`${api.url}/mcp`, { method: 'POST', headers, body });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 1, result: { tools: expect.any(Array) } });
  });
});
