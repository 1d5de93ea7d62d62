import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { loadConfig } from '@app/config';
import { startApi, type StartedApi } from '../../apps/api/src/main';
import { teamFixture } from '../support/e2e-env';
import { client as httpClient } from '../support/http-client';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import { waitFor } from '../support/wait-for';

type Structured = Record<string, unknown>;
type Listed = { memories: Array<{ id: number; content: string }>; total: number; truncated: boolean };

const TOOLS = [
  'memory_store',
  'memory_recall',
  'memory_list',
  'memory_get',
  'memory_update',
  'memory_delete',
  'memory_restore',
  'memory_check',
  'memory_count',
  'startup_context',
  'secret_get',
  'memory_share',
  'memory_unshare',
  'memory_share_tag',
  'memory_unshare_tag',
  'memory_shared_with_me',
  'memory_my_shares',
  'memory_promote',
  'memory_correct',
  'memory_link',
  'memory_unlink',
  'memory_proposals',
  'memory_review',
  'memory_pin',
  'memory_unpin',
  'memory_verify',
  'session_start',
  'session_note',
  'session_end',
];

describe('MCP at POST /mcp (in-process API over real HTTP, SDK client)', () => {
  // No REDIS_URL: the in-process queue embeds new memories, so memory_check sees vectors.
  const team = teamFixture({
    REDIS_URL: '',
    MCP_ALLOWED_ORIGINS: 'https://agents.example.com',
    MCP_MAX_OUTPUT_CHARS: '1200',
  });
  let api: StartedApi;
  let mcpUrl: string;
  let alice: Client;
  let bob: Client;

  beforeAll(async () => {
    api = await startApi(loadConfig({ ...team.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error' }));
    mcpUrl = `${api.url}/mcp`;
    alice = await connectMcp(mcpUrl, bearer(team.keys.alice));
    bob = await connectMcp(mcpUrl, bearer(team.keys.bob));
  });
  afterAll(async () => {
    await alice?.close();
    await bob?.close();
    await api?.stop();
  });

  const store = async (who: Client, args: Record<string, unknown>) => {
    const result = await callTool(who, 'memory_store', args);
    expect(result.isError, result.text).toBeFalsy();
    return (result.structuredContent as { id: number }).id;
  };

  it('initializes statelessly and lists every tool with schemas and annotations', async () => {
    expect(alice.getServerVersion()).toMatchObject({ name: 'memory-service' });
    expect(alice.getInstructions()).toContain('startup_context');
    // Stateless: no session to notify, so the tool list is not advertised as changing.
    expect(alice.getServerCapabilities()?.tools).toEqual({});
    const { tools } = await alice.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-z]+(_[a-z]+)+$/);
      expect(tool.description?.length, tool.name).toBeGreaterThan(60);
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe('boolean');
      expect(tool.inputSchema.properties ?? {}).not.toHaveProperty('user_id');
    }
    expect(byName.get('memory_store')?.inputSchema).toMatchObject({
      required: ['content'],
      properties: {
        content: { type: 'string' },
        importance: { type: 'number', minimum: 0, maximum: 1 },
        force_sensitive: { type: 'boolean' },
      },
    });
    expect(byName.get('memory_recall')?.inputSchema.properties).toHaveProperty('expanded_query');
    // One id field per tool: `id` names the memory, as in the REST paths and docs/mcp-clients.md.
    expect(Object.keys(byName.get('memory_delete')?.inputSchema.properties ?? {})).toEqual(['id']);
    for (const tool of tools) {
      const properties = Object.keys(tool.inputSchema.properties ?? {});
      expect(properties.includes('id') && properties.includes('memory_id'), tool.name).toBe(false);
    }
    // The limits REST enforces, advertised: MAX_LIST_LIMIT (10000 here) for list, 100 for recall.
    expect(byName.get('memory_list')?.inputSchema.properties?.limit).toMatchObject({
      minimum: 1,
      maximum: 10_000,
    });
    expect(byName.get('memory_recall')?.inputSchema.properties?.limit).toMatchObject({
      minimum: 1,
      maximum: 100,
    });
    expect(byName.get('memory_recall')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('memory_delete')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(byName.get('memory_store')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
  });

  it('stores, gets, updates, recalls, lists, counts, deletes and restores through the tools', async () => {
    const id = await store(alice, {
      content: 'The billing service is deployed with Helm charts',
      category: 'decisions',
      tags: ['deploy', 'billing'],
      importance: 0.9,
      project: 'billing',
    });
    const again = await callTool(alice, 'memory_store', {
      content: 'The billing service is deployed with Helm charts',
    });
    expect(again.structuredContent).toMatchObject({ id });

    const got = await callTool(alice, 'memory_get', { id });
    expect(got.structuredContent).toMatchObject({
      id,
      tags: 'deploy,billing',
      project: 'billing',
      owner: 'alice',
    });
    expect(got.text).toContain('Helm charts');
    expect((await callTool(alice, 'memory_get', { id: String(id) })).isError).toBeFalsy();

    const updated = await callTool(alice, 'memory_update', {
      id,
      importance: 0.95,
      expanded_keywords: 'k8s chart',
    });
    expect(updated.structuredContent).toEqual({ updated: id });

    const recalled = await callTool(alice, 'memory_recall', { context: 'how is billing deployed', limit: 5 });
    expect(recalled.isError).toBeFalsy();
    expect((recalled.structuredContent as { memories: Structured[] }).memories[0]).toMatchObject({
      id,
      owner: 'alice',
    });
    expect(recalled.text).toContain(`#${id}`);

    const listed = await callTool(alice, 'memory_list', { tag: 'billing' });
    expect(listed.structuredContent).toMatchObject({ total: 1, truncated: false, omitted: 0 });
    const counted = await callTool(alice, 'memory_count', { project: 'billing' });
    expect(counted).toMatchObject({ text: '1 memory.', structuredContent: { total: 1 } });

    const deleted = await callTool(alice, 'memory_delete', { id });
    expect(deleted.structuredContent).toEqual({ deleted: id, preview: expect.stringContaining('billing') });
    expect((await callTool(alice, 'memory_get', { id })).isError).toBe(true);
    expect((await callTool(alice, 'memory_restore', { id })).structuredContent).toEqual({ restored: id });
    expect((await callTool(alice, 'memory_get', { id })).isError).toBeFalsy();
  });

  it('answers the write guard with NOOP, UPDATE-or-NOOP and ADD', async () => {
    const content = 'Integration tests need a running Postgres with the pgvector extension';
    const id = await store(alice, { content });
    const exact = await callTool(alice, 'memory_check', { content: `  ${content} ` });
    expect(exact.structuredContent).toMatchObject({ action: 'NOOP', match: { id, similarity: 1 } });
    expect(exact.text).toMatch(/^NOOP/);
    const near = await waitFor('the memory to be embedded', async () => {
      const result = await callTool(alice, 'memory_check', { content: `${content} installed` });
      const action = (result.structuredContent as { action: string }).action;
      return action === 'ADD' ? undefined : result;
    });
    expect(near.structuredContent).toMatchObject({ match: { id } });
    const unrelated = await callTool(alice, 'memory_check', {
      content: 'Lunch is served at noon on Fridays',
    });
    expect((unrelated.structuredContent as { action: string }).action).toBe('ADD');
  });

  it('gives the startup block: important memories, decisions and corrections, within a budget', async () => {
    const rule = await store(alice, {
      content: 'Always run the linter before pushing',
      importance: 1,
      category: 'preferences',
    });
    const pnpm = await store(alice, {
      content: 'Atlas uses pnpm workspaces',
      project: 'github.com/acme/atlas',
      category: 'decisions',
    });
    await store(alice, { content: 'Zephyr uses yarn', project: 'zephyr', importance: 1 });
    const result = await callTool(alice, 'startup_context', { project: 'git@github.com:acme/atlas.git' });
    expect(result.isError, result.text).toBeFalsy();
    const data = result.structuredContent as {
      project: string;
      budget: number;
      text: string;
      sections: { important: Structured[]; decisions: Structured[]; sessions: Structured[] };
    };
    expect(data).toMatchObject({ project: 'github.com/acme/atlas', budget: 8000 });
    expect(data.sections.important.map((m) => m.id)).toContain(rule);
    expect(data.sections.decisions.map((m) => m.id)).toEqual([pnpm]);
    expect(result.text).toBe(data.text);
    expect(result.text).toContain('## Important');
    expect(result.text).toContain(`#${pnpm} · decisions · by alice`);
    expect(result.text).not.toContain('Zephyr uses yarn');

    const small = await callTool(alice, 'startup_context', { budget: 500 });
    expect(small.text.length).toBeLessThanOrEqual(500);
    const tooSmall = await callTool(alice, 'startup_context', { budget: 10 });
    expect(tooSmall).toMatchObject({ isError: true });
    expect(tooSmall.text).toContain('budget must be between 500 and 32000 characters');

    // Recall ranks the boosted project's memories first and keeps the others.
    const boosted = await callTool(alice, 'memory_recall', {
      context: 'uses yarn pnpm workspaces',
      project_boost: 'https://github.com/acme/atlas',
    });
    const recalled = (boosted.structuredContent as Listed).memories.map((m) => m.id);
    expect(recalled[0]).toBe(pnpm);
    expect(recalled.length).toBeGreaterThan(1);
  });

  it('caps recall and list output at MCP_MAX_OUTPUT_CHARS and says so', async () => {
    for (let i = 0; i < 8; i++) {
      await store(alice, { content: `Budget probe ${i}: ${'lorem ipsum '.repeat(10)}`, tags: 'budget' });
    }
    const listed = await callTool(alice, 'memory_list', { tag: 'budget' });
    const page = listed.structuredContent as Listed & { omitted: number };
    expect(page).toMatchObject({ total: 8, truncated: true });
    expect(page.memories.length + page.omitted).toBe(8);
    expect(listed.text).toMatch(/more not shown .* 1200-character output budget; continue with offset=\d+/);
    const recalled = await callTool(alice, 'memory_recall', { context: 'budget probe lorem', limit: 8 });
    expect(recalled.structuredContent).toMatchObject({ truncated: true });
    expect(recalled.text.length).toBeLessThan(1_500);
    // The structured copy is held to the same budget as the text.
    for (const result of [listed, recalled]) {
      expect(JSON.stringify(result.structuredContent).length).toBeLessThanOrEqual(1_200);
      expect((result.structuredContent as Listed).memories.length).toBeGreaterThan(0);
    }
  });

  it('turns domain errors into isError results with the REST detail, code and advice', async () => {
    const missing = await callTool(alice, 'memory_get', { id: 999_999_999 });
    expect(missing).toMatchObject({ isError: true });
    expect(missing.text).toContain('Memory 999999999 not found [memory_not_found]');
    expect(missing.text).toContain('memory_list or memory_recall');
    const noFields = await callTool(alice, 'memory_update', { id: 1 });
    expect(noFields.text).toContain('[no_fields_to_update]');
    const tooBig = await callTool(alice, 'memory_store', { content: 'x'.repeat(20_000) });
    expect(tooBig).toMatchObject({ isError: true });
    expect(tooBig.text).toContain('[content_too_large]');
    // No Vault and no MEMORY_ENCRYPTION_KEY here: the secret store is unavailable (503 over REST).
    const sensitive = await callTool(alice, 'memory_store', { content: 'a secret', force_sensitive: true });
    expect(sensitive).toMatchObject({ isError: true });
    expect(sensitive.text).toContain('[secret_store_unavailable]');
    expect(sensitive.text).toContain('Retry later');
  });

  it('refuses bad arguments, identity arguments and unknown tools without crashing the session', async () => {
    const invalid = await callTool(alice, 'memory_store', { content: 'x', importance: 7 });
    expect(invalid).toMatchObject({ isError: true });
    expect(invalid.text).toContain('importance must be between 0 and 1');
    const identity = await callTool(alice, 'memory_list', { user_id: 'bob' });
    expect(identity).toMatchObject({ isError: true });
    expect(identity.text).toContain('user_id');
    expect((await callTool(alice, 'memory_delete', {})).text).toContain('id');
    expect((await callTool(alice, 'memory_delete', { memory_id: 1 })).isError).toBe(true);
    // A project no memory can have: refused by every tool taking one, with the store's message.
    const project = 'p'.repeat(201);
    for (const [tool, args] of [
      ['memory_store', { content: 'never stored', project }],
      ['memory_recall', { context: 'anything', project }],
      ['memory_list', { project }],
      ['startup_context', { project }],
    ] as const) {
      const refused = await callTool(alice, tool, args);
      expect(refused, tool).toMatchObject({ isError: true });
      expect(refused.text, tool).toContain('project is at most 200 characters');
    }
    const tooMany = await callTool(alice, 'memory_recall', { context: 'anything', limit: 101 });
    expect(tooMany).toMatchObject({ isError: true });
    expect(tooMany.text).toContain('limit must be at most 100');
    const pageTooLarge = await callTool(alice, 'memory_list', { limit: 10_001 });
    expect(pageTooLarge).toMatchObject({ isError: true });
    expect(pageTooLarge.text).toContain('limit must be at most 10000');
    expect((await callTool(alice, 'no_such_tool')).isError).toBe(true);
    expect((await callTool(alice, 'memory_count')).isError).toBeFalsy();
  });

  it('isolates users: bob’s tools never see or change alice’s memories', async () => {
    const id = await store(alice, {
      content: 'Alice private note about the staging database password rotation',
    });
    expect((await callTool(bob, 'memory_get', { id })).text).toContain('[memory_not_found]');
    expect((await callTool(bob, 'memory_update', { id, content: 'hijacked' })).isError).toBe(true);
    expect((await callTool(bob, 'memory_delete', { id })).isError).toBe(true);
    expect((await callTool(bob, 'memory_restore', { id })).isError).toBe(true);
    const recalled = await callTool(bob, 'memory_recall', { context: 'staging database password rotation' });
    expect((recalled.structuredContent as Listed).memories.map((m) => m.id)).not.toContain(id);
    const listed = (await callTool(bob, 'memory_list', { limit: 1000 })).structuredContent as Listed;
    expect(listed.memories.map((m) => m.id)).not.toContain(id);
    const startup = (await callTool(bob, 'startup_context')).structuredContent as {
      sections: { important: Structured[]; decisions: Structured[] };
    };
    expect([...startup.sections.important, ...startup.sections.decisions].map((m) => m.id)).not.toContain(id);
    expect((await callTool(bob, 'memory_count')).structuredContent).toEqual({ total: 0 });
    expect((await callTool(alice, 'memory_get', { id })).isError).toBeFalsy();
  });

  it('checks scopes per tool: a read-only key reads but cannot write', async () => {
    const admin = httpClient(api.url, team.keys.admin);
    const created = await admin.post<{ key: string }>('/api/admin/users/alice/keys', {
      name: 'mcp-read-only',
      scopes: ['memories:read'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const reader = await connectMcp(mcpUrl, bearer(created.body.key));
    try {
      expect((await callTool(reader, 'memory_count')).isError).toBeFalsy();
      const refused = await callTool(reader, 'memory_store', { content: 'should not be stored' });
      expect(refused).toMatchObject({ isError: true });
      expect(refused.text).toContain('lacks the "memories:write" scope that memory_store needs');
    } finally {
      await reader.close();
    }
  });

  it('answers 401 with WWW-Authenticate without a valid key, before reading the body', async () => {
    await expect(connectMcp(mcpUrl)).rejects.toMatchObject({ code: 401 });
    await expect(connectMcp(mcpUrl, bearer('wrong-key'))).rejects.toMatchObject({ code: 401 });
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await res.json()).toMatchObject({ code: 'unauthenticated' });
  });

  it('refuses a foreign Origin with 403 and allows a listed one or none', async () => {
    await expect(
      connectMcp(mcpUrl, { ...bearer(team.keys.alice), Origin: 'https://evil.example' }),
    ).rejects.toMatchObject({ code: 403 });
    const listed = await connectMcp(mcpUrl, {
      ...bearer(team.keys.alice),
      Origin: 'https://agents.example.com',
    });
    expect((await callTool(listed, 'memory_count')).isError).toBeFalsy();
    await listed.close();
    const res = await fetch(mcpUrl, { method: 'POST', headers: { origin: 'http://localhost:6274' } });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'origin_not_allowed' });
  });

  it('pins a memory for the caller’s startup context; a team pin needs an admin key', async () => {
    const id = await store(bob, {
      content: 'The payments service is deployed with helm 3',
      project: 'github.com/acme/pins',
      visibility: 'team',
    });
    const pinned = await callTool(alice, 'memory_pin', { id });
    expect(pinned.isError, pinned.text).toBeFalsy();
    expect(pinned.structuredContent).toEqual({ id, scope: 'user', pinned: true, changed: true });
    expect(pinned.text).toBe(`Pinned memory #${id} first in your startup context.`);
    const team = await callTool(alice, 'memory_pin', { id, scope: 'team' });
    expect(team.isError).toBe(true);
    expect(team.text).toContain('admin');

    const context = await callTool(alice, 'startup_context', { project: 'github.com/acme/pins' });
    expect(context.structuredContent).toMatchObject({ sections: { pinned: [{ id, pin: 'user' }] } });
    // The pin is alice's own: bob's startup context lists his memory, but not as pinned.
    const bobs = await callTool(bob, 'startup_context', { project: 'github.com/acme/pins' });
    expect(bobs.structuredContent).toMatchObject({ sections: { pinned: [] } });

    const unpinned = await callTool(alice, 'memory_unpin', { id });
    expect(unpinned.structuredContent).toEqual({ id, scope: 'user', pinned: false, changed: true });
  });

  it('answers CORS for an allowed browser origin only', async () => {
    const preflight = (origin: string) =>
      fetch(mcpUrl, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization',
        },
      });
    const allowed = await preflight('https://agents.example.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://agents.example.com');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('authorization');
    expect((await preflight('https://evil.example')).status).toBe(403);
    const unauthenticated = await fetch(mcpUrl, {
      method: 'POST',
      headers: { origin: 'https://agents.example.com' },
    });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('access-control-allow-origin')).toBe('https://agents.example.com');
  });

  it('answers GET and DELETE with 405 (stateless: no SSE stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(mcpUrl, { method, headers: bearer(team.keys.alice) });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    }
    expect((await fetch(`${api.url}/api/mcp`, { method: 'POST' })).status).toBe(404);
  });

  it('keeps protocol errors as JSON-RPC errors', async () => {
    const post = (body: unknown) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: {
          ...bearer(team.keys.alice),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify(body),
      });
    const unknown = await post({ jsonrpc: '2.0', id: 7, method: 'no/such/method' });
    expect(await unknown.json()).toMatchObject({ id: 7, error: { code: -32601 } });
    const malformed = await post({ hello: 'world' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
  });
});
