import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Logger } from '@nestjs/common';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MemoryError } from '@app/memories';
import { SecretStoreError } from '@app/secrets';
import { type Principal, type Scope } from '@app/tenancy';
import { toAuthInfo } from './mcp-auth';
import { defineTool } from './mcp-tool';

const principal = (scopes: Scope[]): Principal => ({
  tenantId: '11111111-1111-4111-8111-111111111111',
  tenantSlug: 'acme',
  userId: '22222222-2222-4222-8222-222222222222',
  username: 'alice',
  keyId: '33333333-3333-4333-8333-333333333333',
  scopes,
  requestId: 'req-1',
});

/** One tool whose behaviour depends on its argument, served over an in-memory transport. */
const probe = defineTool({
  name: 'probe_tool',
  title: 'Probe',
  description: 'Test tool',
  scope: 'memories:write',
  annotations: { readOnlyHint: false },
  input: z.strictObject({ mode: z.enum(['ok', 'not_found', 'unavailable', 'crash', 'protocol']) }),
  output: z.object({ caller: z.string() }),
  run: async (caller, { mode }) => {
    if (mode === 'not_found') throw MemoryError.notFound(5);
    if (mode === 'unavailable') throw SecretStoreError.unavailable('Vault is sealed');
    if (mode === 'crash') throw new Error('database exploded with internals');
    if (mode === 'protocol') throw new McpError(ErrorCode.InvalidParams, 'bad params');
    return { text: `hello ${caller.username}`, data: { caller: caller.username } };
  },
});

let clients: Client[] = [];
beforeAll(() => Logger.overrideLogger(false)); // failures are logged on purpose; keep the output readable
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

async function connectAs(scopes: Scope[] | null): Promise<Client> {
  const server = new McpServer({ name: 'test', version: '1' }, { capabilities: { tools: {} } });
  probe.register(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  if (scopes) {
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (message, options) =>
      send(message, { ...options, authInfo: toAuthInfo(principal(scopes)) });
  }
  await server.connect(serverSide);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

const call = async (client: Client, mode: string) => {
  const result = (await client.callTool({ name: 'probe_tool', arguments: { mode } })) as CallToolResult;
  const first = result.content[0];
  return { ...result, text: first?.type === 'text' ? first.text : '' };
};

describe('defineTool', () => {
  it('runs with the principal from authInfo and returns text plus structuredContent', async () => {
    const result = await call(await connectAs(['memories:write']), 'ok');
    expect(result).toMatchObject({ text: 'hello alice', structuredContent: { caller: 'alice' } });
    expect(result.isError).toBeFalsy();
  });

  it('refuses a key without the scope, naming scope and tool', async () => {
    const result = await call(await connectAs(['memories:read']), 'ok');
    expect(result.isError).toBe(true);
    expect(result.text).toContain('lacks the "memories:write" scope that probe_tool needs [forbidden]');
    expect(result.structuredContent).toBeUndefined();
  });

  it('maps domain errors to isError results with detail, code and advice', async () => {
    const client = await connectAs(['memories:write']);
    const missing = await call(client, 'not_found');
    expect(missing).toMatchObject({ isError: true });
    expect(missing.text).toMatch(/^Memory 5 not found \[memory_not_found\]\nCheck the id/);
    const sealed = await call(client, 'unavailable');
    expect(sealed.text).toContain('Vault is sealed [secret_store_unavailable]');
    expect(sealed.text).toContain('Retry later');
  });

  it('hides internals of unexpected failures and quotes the request id', async () => {
    const result = await call(await connectAs(['memories:write']), 'crash');
    expect(result.isError).toBe(true);
    expect(result.text).toContain('Internal server error [internal_error] (request id req-1)');
    expect(result.text).not.toContain('exploded');
  });

  it('leaves protocol errors to the SDK', async () => {
    const result = await call(await connectAs(['memories:write']), 'protocol');
    expect(result).toMatchObject({ isError: true, text: expect.stringContaining('bad params') });
    expect(result.text).not.toContain('[internal_error]');
  });

  it('refuses a call that arrives without an authenticated principal', async () => {
    const result = await call(await connectAs(null), 'ok');
    expect(result.isError).toBe(true);
    expect(result.text).toContain('without an authenticated principal');
  });
});
