import { randomBytes } from 'node:crypto';
import { Client, type Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '@app/tenancy';
import { teamFixture } from '../support/e2e-env';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import { newSigningKey, TEST_REDIRECT_URI, TestIdp } from '../support/oidc-idp';
import { adminKeyInOtherTenant } from '../support/other-tenant';
import { freePort, startApiProcess, type ApiProcess } from '../support/processes';
import { withDb } from '../support/superuser-db';
import { waitFor } from '../support/wait-for';

/**
 * MCP authorization with the team's own identity provider: the service as an OAuth resource server
 * beside API keys, against a real OpenID provider (oidc-provider) running in the test — tokens got by
 * authorization code + PKCE, verified with the provider's published keys, bound to the tenant the
 * issuer serves.
 */
describe('access tokens from the team identity provider (OAuth resource server)', () => {
  let api: ApiProcess;
  let idpA: TestIdp;
  let idpB: TestIdp;
  let resource: string;
  const otherTenant = `e2e-b-${randomBytes(3).toString('hex')}`;
  const team = teamFixture();
  const scope = `openid email ${SCOPES.filter((s) => s !== 'admin').join(' ')}`;

  beforeAll(async () => {
    idpA = await TestIdp.start({
      scopes: SCOPES,
      accounts: {
        carol: { email: 'carol@example.com', name: 'Carol' },
        mallory: { email: 'mallory@elsewhere.org' },
        unverified: { email: 'eve@example.com', emailVerified: false },
        alice: { email: 'alice' },
      },
    });
    idpB = await TestIdp.start({ scopes: SCOPES, accounts: { dave: { email: 'dave@other.org' } } });
    await adminKeyInOtherTenant(otherTenant);
    const port = await freePort();
    resource = `http://127.0.0.1:${port}`;
    api = await startApiProcess(
      {
        ...team.env,
        OAUTH_RESOURCE: resource,
        OAUTH_ISSUERS: JSON.stringify([
          { issuer: idpA.issuer, tenant: team.tenant, jit_domains: ['example.com'] },
          { issuer: idpB.issuer, tenant: otherTenant, jit_domains: ['other.org'] },
        ]),
      },
      { port },
    );
  });
  afterAll(async () => {
    await api?.stop();
    await idpA?.stop();
    await idpB?.stop();
  });

  const asBearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const memories = (token: string) =>
    fetch(`${api.url}/api/memories?limit=100`, { headers: asBearer(token) });

  it('publishes its protected-resource metadata and points every 401 to it', async () => {
    const root = await fetch(`${api.url}/.well-known/oauth-protected-resource`);
    expect(root.status).toBe(200);
    expect(await root.json()).toMatchObject({
      resource,
      authorization_servers: [idpA.issuer, idpB.issuer],
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ['header'],
    });
    const mcp = (await (await fetch(`${api.url}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      resource: string;
    };
    expect(mcp.resource).toBe(`${resource}/mcp`);

    const noToken = await fetch(`${api.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('www-authenticate')).toBe(
      `Bearer realm="memory-service", resource_metadata="${resource}/.well-known/oauth-protected-resource/mcp"`,
    );
    const rest = await fetch(`${api.url}/api/memories`);
    expect(rest.headers.get('www-authenticate')).toContain(
      `resource_metadata="${resource}/.well-known/oauth-protected-resource"`,
    );
  });

  it('takes a token got by authorization code + PKCE on /mcp and /api, adding a member of an allowed domain', async () => {
    const token = await idpA.accessToken({ account: 'carol', resource: `${resource}/mcp`, scope });
    const mcp: McpClient = await connectMcp(`${api.url}/mcp`, bearer(token));
    try {
      const tools = await mcp.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('memory_store');
      const stored = await callTool(mcp, 'memory_store', {
        content: 'Carol: the billing cron runs at 02:00 UTC',
      });
      expect(stored.isError ?? false).toBe(false);
    } finally {
      await mcp.close();
    }
    const listed = await memories(token);
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { memories: { content: string; owner?: string }[] };
    expect(body.memories.map((m) => m.content)).toContain('Carol: the billing cron runs at 02:00 UTC');
    const check = (await (await fetch(`${api.url}/api/auth-check`, { headers: asBearer(token) })).json()) as {
      user_id: string;
    };
    expect(check.user_id).toBe('carol@example.com');

    // Added once, bound, audited; a second token of the same member is the same user and key.
    await withDb(async (db) => {
      const { rows } = await db.query<{ username: string; source: string; actions: string[] }>(
        `SELECT u.username, k.source,
                ARRAY(SELECT action FROM audit_log a WHERE a.tenant_id = u.tenant_id AND a.target_id = u.id::text
                       ORDER BY a.id) AS actions
           FROM user_identities i JOIN users u ON u.id = i.user_id JOIN api_keys k ON k.id = i.key_id
          WHERE i.issuer = $1 AND i.subject = 'carol'`,
        [idpA.issuer],
      );
      expect(rows).toEqual([
        { username: 'carol@example.com', source: 'oidc', actions: ['user.create', 'identity.bind'] },
      ]);
    });
    const again = await idpA.accessToken({ account: 'carol', resource, scope });
    expect((await memories(again)).status).toBe(200);
    await withDb(async (db) => {
      const { rows } = await db.query(`SELECT 1 FROM users WHERE username = 'carol@example.com'`);
      expect(rows).toHaveLength(1);
    });
  });

  it('lets the MCP SDK client run its own OAuth flow (discovery, registration, code + PKCE) and list tools', async () => {
    let authorizationUrl: URL | undefined;
    const saved: { client?: OAuthClientInformationMixed; tokens?: OAuthTokens; verifier?: string } = {};
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return TEST_REDIRECT_URI;
      },
      get clientMetadata() {
        return {
          client_name: 'memory-service SDK test',
          redirect_uris: [TEST_REDIRECT_URI],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        };
      },
      clientInformation: () => saved.client,
      saveClientInformation: (client) => void (saved.client = client),
      tokens: () => saved.tokens,
      saveTokens: (tokens) => void (saved.tokens = tokens),
      redirectToAuthorization: (url) => void (authorizationUrl = url),
      saveCodeVerifier: (verifier) => void (saved.verifier = verifier),
      codeVerifier: () => saved.verifier ?? '',
    };
    const url = new URL(`${api.url}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    // The 401's pointer leads the SDK to the metadata, the provider, a registration and the sign-in page.
    await expect(new Client({ name: 'sdk-oauth', version: '1.0.0' }).connect(first)).rejects.toThrow(
      UnauthorizedError,
    );
    expect(saved.client?.client_id).toBeTruthy();
    expect(authorizationUrl?.origin).toBe(idpA.issuer);
    expect(authorizationUrl?.searchParams.get('resource')).toBe(`${resource}/mcp`);
    expect(authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    const code = await idpA.authorize((authorizationUrl as URL).href, 'carol');
    await first.finishAuth(code);
    expect(saved.tokens?.access_token).toBeTruthy();

    const client = new Client({ name: 'sdk-oauth', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('memory_recall');
      const recalled = await callTool(client, 'memory_recall', { context: 'when does the billing cron run' });
      expect(recalled.text).toContain('02:00 UTC');
    } finally {
      await client.close();
    }
  });

  it('binds an existing member by verified email, and narrows the key to the scopes the token names', async () => {
    const token = await idpA.accessToken({ account: 'alice', resource, scope: 'openid email memories:read' });
    const check = (await (await fetch(`${api.url}/api/auth-check`, { headers: asBearer(token) })).json()) as {
      user_id: string;
    };
    expect(check.user_id).toBe('alice');
    const write = await fetch(`${api.url}/api/memories`, {
      method: 'POST',
      headers: { ...asBearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'read-only token write' }),
    });
    expect(write.status).toBe(403);
  });

  it('refuses members of other domains and unverified emails (403), adding no one', async () => {
    for (const account of ['mallory', 'unverified']) {
      const token = await idpA.accessToken({ account, resource, scope });
      const res = await memories(token);
      expect(res.status, account).toBe(403);
    }
    await withDb(async (db) => {
      const { rows } = await db.query(
        `SELECT username FROM users WHERE username IN ('mallory@elsewhere.org', 'eve@example.com')`,
      );
      expect(rows).toEqual([]);
    });
  });

  it('answers 401 with the pointer for another audience, an expired token, a wrong signature and an unknown issuer', async () => {
    const claims = { iss: idpA.issuer, sub: 'carol', email: 'carol@example.com', email_verified: true };
    const now = Math.floor(Date.now() / 1000);
    const forger = await newSigningKey(idpA.keys[0].kid);
    const cases: [string, string][] = [
      ['audience', await idpA.sign({ ...claims, aud: 'https://other.example' })],
      ['expired', await idpA.sign({ ...claims, aud: resource, iat: now - 900 }, { expiresIn: now - 300 })],
      ['signature', await idpA.sign({ ...claims, aud: resource }, { key: forger })],
      ['issuer', await idpA.sign({ ...claims, iss: 'http://127.0.0.1:9/unknown', aud: resource })],
    ];
    const valid = await idpA.sign({ ...claims, aud: resource });
    expect((await memories(valid)).status).toBe(200);
    for (const [name, token] of cases) {
      const res = await memories(token);
      expect(res.status, name).toBe(401);
      expect(res.headers.get('www-authenticate'), name).toBe(
        `Bearer realm="memory-service", error="invalid_token", resource_metadata="${resource}/.well-known/oauth-protected-resource"`,
      );
      const mcp = await fetch(`${api.url}/mcp`, {
        method: 'POST',
        headers: {
          ...asBearer(token),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(mcp.status, `${name} on /mcp`).toBe(401);
      expect(mcp.headers.get('www-authenticate'), name).toContain(
        '/.well-known/oauth-protected-resource/mcp"',
      );
    }
  });

  it('keeps each issuer to its own tenant: a member signed in by one never sees the other', async () => {
    const dave = await idpB.accessToken({ account: 'dave', resource, scope });
    const stored = await fetch(`${api.url}/api/memories`, {
      method: 'POST',
      headers: { ...asBearer(dave), 'content-type': 'application/json' },
      body: JSON.stringify({
        content: 'Dave: tenant B keeps its runbooks in the vault room',
        visibility: 'team',
      }),
    });
    expect(stored.status).toBe(200);
    const { id } = (await stored.json()) as { id: number };
    const carol = await idpA.accessToken({ account: 'carol', resource, scope });
    expect((await fetch(`${api.url}/api/memories/${id}`, { headers: asBearer(carol) })).status).toBe(404);
    const listed = (await (await memories(carol)).json()) as { memories: { content: string }[] };
    expect(listed.memories.map((m) => m.content).join('\n')).not.toContain('vault room');
    const recalled = await fetch(`${api.url}/api/memories/recall`, {
      method: 'POST',
      headers: { ...asBearer(carol), 'content-type': 'application/json' },
      body: JSON.stringify({ context: 'where does the team keep its runbooks vault room' }),
    });
    expect(JSON.stringify(await recalled.json())).not.toContain('vault room');
    // Dave's own tenant answers; his identity holds no user in tenant A.
    expect((await fetch(`${api.url}/api/memories/${id}`, { headers: asBearer(dave) })).status).toBe(200);
  });

  it('picks up a rotated signing key without a restart', async () => {
    await idpA.rotate();
    const token = await idpA.accessToken({ account: 'carol', resource, scope });
    // The key set is fetched again once its refetch cooldown (5 s) has passed since the last fetch.
    const status = await waitFor(
      'the rotated key to be accepted',
      async () => {
        const res = await memories(token);
        return res.status === 200 ? res.status : undefined;
      },
      15_000,
      500,
    );
    expect(status).toBe(200);
  });

  it('shows each sign-in to admins as a key they can revoke (not rotate), which shuts that identity out', async () => {
    const admin = { authorization: `Bearer ${team.keys.admin}` };
    const listed = (await (
      await fetch(`${api.url}/api/admin/keys?user=carol@example.com`, { headers: admin })
    ).json()) as {
      keys: { id: string; source: string; status: string }[];
    };
    const signIn = listed.keys.find((k) => k.source === 'oidc');
    expect(signIn?.status).toBe('active');
    const rotate = await fetch(`${api.url}/api/admin/keys/${signIn?.id}/rotate`, {
      method: 'POST',
      headers: admin,
    });
    expect(rotate.status).toBeGreaterThanOrEqual(400);
    expect(rotate.status).toBeLessThan(500);
    const before = await idpA.accessToken({ account: 'carol', resource, scope });
    expect((await memories(before)).status).toBe(200);
    expect(
      (await fetch(`${api.url}/api/admin/keys/${signIn?.id}`, { method: 'DELETE', headers: admin })).status,
    ).toBe(200);
    const after = await memories(before);
    expect(after.status).toBe(401);
    expect(((await after.json()) as { detail: string }).detail).toMatch(/revoked/);
  });
});
