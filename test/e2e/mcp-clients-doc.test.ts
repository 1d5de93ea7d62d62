import { existsSync, readFileSync } from 'node:fs';
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

function readJson(path: string) {
  return JSON.parse(readFileSync(resolve(ROOT, path), 'utf8'));
}

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
  const plugin = readJson('clients/claude-code/.mcp.json').mcpServers.memory;
  const pluginEnv = (text: string) =>
    text.replace('${MEMORY_API_URL}', DOC_BASE).replace('${MEMORY_API_KEY}', key);
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
    'Claude Code plugin': {
      url: pluginEnv(plugin.url),
      headers: { Authorization: pluginEnv(plugin.headers.Authorization) },
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

  it.each(['Claude Code', 'Cursor', 'Codex CLI', 'VS Code', 'mcp-remote', 'Claude Code plugin'])(
    '%s',
    async (name) => {
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
    },
  );

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

describe('the client files in clients/ that docs/mcp-clients.md describes', () => {
  /** Where the Cursor and Codex files expect the repository to be cloned. */
  const CLONE = '/path/to/memory-service/';
  const scriptsOf = (commands: string[], prefix: string) =>
    commands.map((command) => {
      const script = (command.split(' ').find((word) => /\.mjs"?$/.test(word)) ?? '').replace(/"$/, '');
      expect(script.startsWith(prefix), command).toBe(true);
      return script.slice(prefix.length);
    });
  const commandsOf = (
    hooks: Record<string, Array<{ command?: string; hooks?: Array<{ command: string }> }>>,
  ) =>
    Object.values(hooks).flatMap((groups) =>
      groups.flatMap((group) =>
        group.hooks ? group.hooks.map((hook) => hook.command) : [group.command ?? ''],
      ),
    );

  it('exist wherever the doc names them', () => {
    const named = [...doc.matchAll(/`((?:clients|\.claude-plugin)\/[^`\s]*)`/g)].map(([, path]) => path);
    expect(named.length).toBeGreaterThanOrEqual(10);
    for (const path of named) expect(existsSync(resolve(ROOT, path)), path).toBe(true);
  });

  it('make an installable Claude Code plugin and marketplace', () => {
    const manifest = readJson('clients/claude-code/.claude-plugin/plugin.json');
    const marketplace = readJson('.claude-plugin/marketplace.json');
    expect(manifest).toMatchObject({ name: 'memory', version: expect.any(String) });
    expect(marketplace).toMatchObject({ name: expect.any(String), owner: { name: expect.any(String) } });
    const entry = marketplace.plugins.find((plugin: { name: string }) => plugin.name === manifest.name);
    expect(existsSync(resolve(ROOT, entry.source, '.claude-plugin/plugin.json'))).toBe(true);
    expect(block('bash', 'claude plugin install')).toContain(`${manifest.name}@${marketplace.name}`);

    const hooks = readJson('clients/claude-code/hooks/hooks.json').hooks;
    expect(Object.keys(hooks).sort()).toEqual(
      ['PostToolUse', 'PreCompact', 'SessionEnd', 'SessionStart', 'Stop', 'UserPromptSubmit'].sort(),
    );
    expect(hooks.SessionStart[0].matcher).toContain('compact');
    for (const script of scriptsOf(commandsOf(hooks), '"${CLAUDE_PLUGIN_ROOT}/')) {
      expect(existsSync(resolve(ROOT, 'clients/claude-code', script)), script).toBe(true);
    }
    for (const command of ['remember', 'recall']) {
      const text = readFileSync(resolve(ROOT, `clients/claude-code/commands/${command}.md`), 'utf8');
      expect(text).toMatch(/^---\ndescription: .+\n[\s\S]*?---\n/);
      expect(text).toContain('$ARGUMENTS');
    }
  });

  it('hold the Cursor and Codex configuration shown above, running scripts that exist', () => {
    expect(readJson('clients/cursor/mcp.json')).toEqual(JSON.parse(block('json', '"mcpServers"')));
    const codexToml = readFileSync(resolve(ROOT, 'clients/codex/config.toml'), 'utf8');
    for (const line of block('toml', 'mcp_servers.memory').trim().split('\n'))
      expect(codexToml).toContain(line);
    expect(codexToml).toMatch(/\[features\]\ncodex_hooks = true/);

    const cursor = readJson('clients/cursor/hooks.json');
    expect(cursor.version).toBe(1);
    const codex = readJson('clients/codex/hooks.json');
    const notify = /notify = \[([^\]]+)\]/.exec(block('toml', 'notify'))?.[1] ?? '';
    const notifyCommand = [...notify.matchAll(/"([^"]+)"/g)].map(([, word]) => word).join(' ');
    const scripts = [
      ...scriptsOf(commandsOf(cursor.hooks), CLONE),
      ...scriptsOf(commandsOf(codex.hooks), CLONE),
      ...scriptsOf([notifyCommand], CLONE),
    ];
    expect(scripts).toContain('clients/claude-code/hooks/session-start.mjs');
    for (const script of scripts) expect(existsSync(resolve(ROOT, script)), script).toBe(true);
  });
});
