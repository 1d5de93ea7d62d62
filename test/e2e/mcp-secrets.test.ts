import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client as PgClient } from 'pg';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { loadConfig } from '@app/config';
import { FakeVault } from '@app/testing';
import { startApi, type StartedApi } from '../../apps/api/src/main';
import { teamFixture } from '../support/e2e-env';
import { client as httpClient } from '../support/http-client';
import { bearer, callTool, connectMcp } from '../support/mcp-client';

type Recalled = { memories: Array<{ id: number; content: string; is_sensitive: boolean }> };

describe('MCP secret tools against Vault (fake Vault server, in-process API)', () => {
  const vault = new FakeVault();
  const team = teamFixture();
  let api: StartedApi;
  let pg: PgClient;
  let alice: Client;
  let bob: Client;
  const secretText = 'The staging database password is Tr0ub4dor&3-horse-battery';

  beforeAll(async () => {
    const address = await vault.start();
    api = await startApi(
      loadConfig({
        ...team.env,
        VAULT_ADDR: address,
        VAULT_TOKEN: vault.rootToken,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'fatal',
      }),
    );
    pg = new PgClient({ connectionString: inject('databaseUrl') });
    await pg.connect();
    alice = await connectMcp(`${api.url}/mcp`, bearer(team.keys.alice));
    bob = await connectMcp(`${api.url}/mcp`, bearer(team.keys.bob));
  });
  afterAll(async () => {
    await alice?.close();
    await bob?.close();
    await pg?.end();
    await api?.stop();
    await vault.stop();
  });

  const storeSecret = async () => {
    const stored = await callTool(alice, 'memory_store', {
      content: secretText,
      force_sensitive: true,
      tags: 'staging',
    });
    expect(stored.isError, stored.text).toBeFalsy();
    return (stored.structuredContent as { id: number }).id;
  };

  it('keeps a secret out of recall and reveals it through secret_get, with an audit row', async () => {
    const id = await storeSecret();
    const recalled = (await callTool(alice, 'memory_recall', { context: 'staging database password' }))
      .structuredContent as Recalled;
    const hit = recalled.memories.find((m) => m.id === id);
    expect(hit).toMatchObject({ is_sensitive: true });
    expect(hit?.content).toContain('[REDACTED:');
    expect(hit?.content).toContain(`[SENSITIVE - use secret_get(id=${id})]`);
    expect(hit?.content).not.toContain('Tr0ub4dor');
    const revealed = await callTool(alice, 'secret_get', { id });
    expect(revealed.structuredContent).toEqual({
      id,
      content: secretText,
      category: expect.any(String),
      source: 'vault',
    });
    expect(revealed.text).toContain(secretText);
    const audit = await pg.query(
      `SELECT a.action FROM audit_log a JOIN tenants t ON t.id = a.tenant_id
        WHERE t.slug = $1 AND a.action = 'memory.secret.reveal' AND a.target_id = $2`,
      [team.tenant, String(id)],
    );
    expect(audit.rowCount).toBe(1);
  });

  it('answers not found for another user’s secret, and the content of a memory without one', async () => {
    const id = await storeSecret();
    expect((await callTool(bob, 'secret_get', { id })).text).toContain('[memory_not_found]');
    const plain = await callTool(alice, 'memory_store', { content: 'Nothing secret about the lunch menu' });
    const plainId = (plain.structuredContent as { id: number }).id;
    const revealed = await callTool(alice, 'secret_get', { id: plainId });
    expect(revealed.isError).toBeFalsy();
    expect(revealed.structuredContent).toMatchObject({
      id: plainId,
      content: 'Nothing secret about the lunch menu',
      source: 'plain',
    });
  });

  it('tells a key without secrets:read which scope it lacks, and reveals nothing', async () => {
    const id = await storeSecret();
    const created = await httpClient(api.url, team.keys.admin).post<{ key: string }>(
      '/api/admin/users/alice/keys',
      {
        name: 'mcp-no-secrets',
        scopes: ['memories:read', 'memories:write'],
      },
    );
    const limited = await connectMcp(`${api.url}/mcp`, bearer(created.body.key));
    try {
      const refused = await callTool(limited, 'secret_get', { id });
      expect(refused).toMatchObject({ isError: true });
      expect(refused.text).toContain('lacks the "secrets:read" scope needed to reveal a secret [forbidden]');
      expect(refused.text).not.toContain('Tr0ub4dor');
    } finally {
      await limited.close();
    }
  });

  it('turns a sealed Vault into an isError result that says to retry later', async () => {
    const id = await storeSecret();
    vault.faults.sealed = true;
    try {
      const sealed = await callTool(alice, 'secret_get', { id });
      expect(sealed).toMatchObject({ isError: true });
      expect(sealed.text).toContain('[secret_store_unavailable]');
      expect(sealed.text).toContain('Retry later');
      const store = await callTool(alice, 'memory_store', {
        content: 'another credential',
        force_sensitive: true,
      });
      expect(store).toMatchObject({ isError: true, text: expect.stringContaining('Retry later') });
    } finally {
      vault.faults.sealed = false;
    }
    expect((await callTool(alice, 'secret_get', { id })).isError).toBeFalsy();
  });
});
