import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '@app/tenancy';
import { launchBrowser, openTab, screenshot, signIn, type ConsoleTab } from '../support/browser';
import { teamFixture } from '../support/e2e-env';
import { TestIdp } from '../support/oidc-idp';
import { freePort, startApiProcess, type ApiProcess } from '../support/processes';
import { withDb } from '../support/superuser-db';

// The page's own globals, used in code that runs in the browser (page.evaluate); this program is
// type-checked without the DOM library.
declare const document: { readonly cookie: string };

const CONSOLE_CLIENT = 'memory-console';
// Generated at run time: nothing secret-shaped is committed.
const CONSOLE_SECRET = randomBytes(24).toString('base64url');

/**
 * The web console's sign-in with the team's identity provider, in Chromium against the built API
 * and a real OpenID provider (oidc-provider): the member signs in on the provider's own pages
 * (authorization code + PKCE, a confidential client), the session lives in an HttpOnly cookie, a
 * change needs the session's CSRF token, sign-out ends the session on the server, and the API-key
 * sign-in works as before.
 */
describe('console sign-in with the identity provider (Chromium)', () => {
  const team = teamFixture();
  let idp: TestIdp;
  let api: ApiProcess;
  let browser: Browser;
  let carol: ConsoleTab;
  let sessionCookie: string;
  let csrf: string;

  beforeAll(async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}`;
    idp = await TestIdp.start({
      scopes: SCOPES,
      accounts: { carol: { email: 'carol@example.com', name: 'Carol' } },
      clients: [
        {
          client_id: CONSOLE_CLIENT,
          client_secret: CONSOLE_SECRET,
          token_endpoint_auth_method: 'client_secret_basic',
          redirect_uris: [`${resource}/auth/callback`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
    });
    [api, browser] = await Promise.all([
      startApiProcess(
        {
          ...team.env,
          OAUTH_RESOURCE: resource,
          OAUTH_ISSUERS: JSON.stringify([
            {
              issuer: idp.issuer,
              tenant: team.tenant,
              jit_domains: ['example.com'],
              console_client_id: CONSOLE_CLIENT,
              console_label: 'Example SSO',
            },
          ]),
          OAUTH_CONSOLE_CLIENT_SECRETS: JSON.stringify({ [idp.issuer]: CONSOLE_SECRET }),
          // Request lines too: the callback's URL is logged without its code.
          LOG_LEVEL: 'info',
        },
        { port },
      ),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await api?.stop();
    await idp?.stop();
  });

  /** Signs in on the provider's pages (login, and consent unless the provider remembers it). */
  const signInWithIdp = async (page: Page) => {
    await page.goto('/ui/');
    await page.getByRole('link', { name: 'Sign in with Example SSO' }).click();
    await page.waitForURL((url) => url.href.startsWith(idp.issuer));
    await page.locator('input[name="login"]').fill('carol');
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    const consent = page.locator('button[type="submit"]', { hasText: 'Continue' });
    await Promise.race([consent.click().catch(() => undefined), heading(page, 'Overview').waitFor()]);
    await heading(page, 'Overview').waitFor();
  };
  const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const withCookie = (extra: Record<string, string> = {}) => ({
    cookie: `memsvc-session=${sessionCookie}`,
    ...extra,
  });
  const storeFromNode = (headers: Record<string, string>) =>
    fetch(`${api.url}/api/memories`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ content: `From a script ${randomBytes(4).toString('hex')}`, category: 'notes' }),
    });

  it('lists the provider, and signs in through its own login and consent pages', async () => {
    const providers = (await (await fetch(`${api.url}/auth/providers`)).json()) as {
      providers: { issuer: string; label: string; login_url: string }[];
    };
    expect(providers.providers).toEqual([
      {
        issuer: idp.issuer,
        label: 'Example SSO',
        login_url: `/auth/login?issuer=${encodeURIComponent(idp.issuer)}`,
      },
    ]);

    carol = await openTab(browser, api.url);
    const { page } = carol;
    await page.goto('/ui/');
    const button = page.getByRole('link', { name: 'Sign in with Example SSO' });
    await button.waitFor();
    await page.getByLabel('API key').waitFor();
    await screenshot(page, 'login-sso');
    await button.click();

    // The provider's pages (oidc-provider's development interactions): login, then consent.
    await page.waitForURL((url) => url.href.startsWith(idp.issuer));
    await page.locator('input[name="login"]').fill('carol');
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]', { hasText: 'Continue' }).click();

    await heading(page, 'Overview').waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/');
    expect(await page.locator('.who').textContent()).toContain('carol@example.com');

    const cookies = await carol.context.cookies(api.url);
    const session = cookies.find((c) => c.name === 'memsvc-session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    // Plain http on 127.0.0.1 (the test): not Secure; over https it is Secure and __Host- named.
    expect(session?.secure).toBe(false);
    expect(cookies.find((c) => c.name === 'memsvc-login')).toBeUndefined();
    expect(await page.evaluate(() => document.cookie)).not.toContain('memsvc-session');
    sessionCookie = session!.value;

    const who = await fetch(`${api.url}/auth/session`, { headers: withCookie() });
    expect(who.status).toBe(200);
    const body = (await who.json()) as { signed_in: boolean; username: string; csrf_token: string };
    expect(body).toMatchObject({ signed_in: true, username: 'carol@example.com' });
    csrf = body.csrf_token;

    // The member was added (jit_domains) and the identity bound to a key of its own.
    const rows = await withDb((db) =>
      db.query<{ source: string }>(
        `SELECT k.source FROM console_sessions s JOIN api_keys k ON k.id = s.key_id AND k.tenant_id = s.tenant_id
          JOIN tenants t ON t.id = s.tenant_id WHERE t.slug = $1`,
        [team.tenant],
      ),
    );
    expect(rows.rows).toEqual([{ source: 'oidc' }]);

    // The sign-in is in the tenant's audit log, by the member, through the provider.
    const audit = await fetch(`${api.url}/api/admin/audit?action=console.sign_in`, {
      headers: { authorization: `Bearer ${team.keys.admin}` },
    });
    expect(audit.status).toBe(200);
    const entries = ((await audit.json()) as { entries: Array<Record<string, unknown>> }).entries;
    expect(entries).toHaveLength(1);
    expect(JSON.stringify(entries[0])).toContain('carol@example.com');
    expect(JSON.stringify(entries[0])).not.toContain(sessionCookie);
  });

  it('stores a memory from the console (the CSRF token rides along)', async () => {
    const { page } = carol;
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Memories', exact: true })
      .click();
    await page.getByRole('link', { name: 'New memory' }).click();
    await heading(page, 'New memory').waitFor();
    await page.getByLabel('Content').fill('Signed in through the identity provider, stored from the console');
    await page.getByLabel('Category').fill('notes');
    await page.getByRole('button', { name: 'Store memory' }).click();
    await heading(page, /^Memory \d+$/).waitFor();
    expect(await page.getByLabel('Content').textContent()).toContain('identity provider');
    // (The provider's own pages ask for their favicon and fonts elsewhere; the console broke no CSP rule.)
    expect(carol.errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
  });

  it('refuses a change with the cookie but without the CSRF token, or from another origin (403)', async () => {
    const inPage = await carol.page.evaluate(async () => {
      const res = await fetch('/api/memories', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'No token, no write', category: 'notes' }),
        credentials: 'same-origin',
      });
      return { status: res.status, body: await res.json() };
    });
    expect(inPage.status).toBe(403);
    expect(inPage.body).toMatchObject({
      code: 'csrf_rejected',
      detail: expect.stringContaining('X-CSRF-Token'),
    });

    const noToken = await storeFromNode(withCookie());
    expect(noToken.status).toBe(403);
    expect((await noToken.json()) as object).toMatchObject({ code: 'csrf_rejected' });
    const wrongToken = await storeFromNode(
      withCookie({ 'x-csrf-token': csrf.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) }),
    );
    expect(wrongToken.status).toBe(403);
    const otherOrigin = await storeFromNode(
      withCookie({ 'x-csrf-token': csrf, origin: 'http://evil.example' }),
    );
    expect(otherOrigin.status).toBe(403);
    const withToken = await storeFromNode(withCookie({ 'x-csrf-token': csrf }));
    expect(withToken.status).toBe(200);
    // Reads need no token.
    expect((await fetch(`${api.url}/api/memories`, { headers: withCookie() })).status).toBe(200);
    // The cookie opens /api only: the MCP endpoint still needs a bearer.
    const mcp = await fetch(`${api.url}/mcp`, {
      method: 'POST',
      headers: withCookie({
        'x-csrf-token': csrf,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
  });

  it('signs out: the cookie is cleared and the session no longer works on the server', async () => {
    const { page, context } = carol;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    await expect
      .poll(async () => (await context.cookies(api.url)).some((c) => c.name === 'memsvc-session'))
      .toBe(false);
    await expect
      .poll(async () => (await fetch(`${api.url}/api/memories`, { headers: withCookie() })).status)
      .toBe(401);
    const after = await fetch(`${api.url}/auth/session`, { headers: withCookie() });
    expect(await after.json()).toEqual({ signed_in: false });
    expect(after.headers.getSetCookie().join()).toMatch(/memsvc-session=; Max-Age=0/);
    expect(
      await withDb(
        async (db) =>
          (
            await db.query(`SELECT 1 FROM console_sessions WHERE token_hash = sha256($1::bytea)`, [
              Buffer.from(sessionCookie),
            ])
          ).rowCount,
      ),
    ).toBe(0);
    // Reloading does not sign back in.
    await page.goto('/ui/');
    await page.getByLabel('API key').waitFor();
  });

  it('ends a session left idle past CONSOLE_SESSION_IDLE_MINUTES', async () => {
    const tab = await openTab(browser, api.url);
    await signInWithIdp(tab.page);
    const value = (await tab.context.cookies(api.url)).find((c) => c.name === 'memsvc-session')!.value;
    const cookie = { cookie: `memsvc-session=${value}` };
    expect((await fetch(`${api.url}/api/memories`, { headers: cookie })).status).toBe(200);
    await withDb((db) =>
      db.query(
        `UPDATE console_sessions SET last_seen_at = now() - interval '61 minutes' WHERE token_hash = sha256($1::bytea)`,
        [Buffer.from(value)],
      ),
    );
    const idle = await fetch(`${api.url}/api/memories`, { headers: cookie });
    expect(idle.status).toBe(401);
    expect(((await idle.json()) as { detail: string }).detail).toContain('session has ended');
    await tab.context.close();
  });

  it("ends the session when an admin revokes the identity's key", async () => {
    const tab = await openTab(browser, api.url);
    await signInWithIdp(tab.page);
    const value = (await tab.context.cookies(api.url)).find((c) => c.name === 'memsvc-session')!.value;
    const cookie = { cookie: `memsvc-session=${value}` };
    expect((await fetch(`${api.url}/api/memories`, { headers: cookie })).status).toBe(200);
    const { rows } = await withDb((db) =>
      db.query<{ key_id: string }>(
        `SELECT s.key_id FROM console_sessions s WHERE s.token_hash = sha256($1::bytea)`,
        [Buffer.from(value)],
      ),
    );
    const revoke = await fetch(`${api.url}/api/admin/keys/${rows[0].key_id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${team.keys.admin}` },
    });
    expect(revoke.status).toBe(200);
    const refused = await fetch(`${api.url}/api/memories`, { headers: cookie });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { detail: string }).detail).toContain('revoked');
    // The console goes back to sign-in with the reason.
    await tab.page.reload();
    await tab.page.getByLabel('API key').waitFor();
    // Signing in again is refused: the identity's key stays revoked.
    await tab.page.getByRole('link', { name: 'Sign in with Example SSO' }).click();
    await tab.page.getByRole('status').filter({ hasText: 'revoked' }).waitFor();
    await tab.context.close();
  });

  it('still signs in with an API key, which goes in its header, not a cookie', async () => {
    const tab = await openTab(browser, api.url);
    await signIn(tab.page, team.keys.alice);
    expect(await tab.page.locator('.who').textContent()).toContain('alice');
    expect((await tab.context.cookies(api.url)).some((c) => c.name === 'memsvc-session')).toBe(false);
    const bearer = await fetch(`${api.url}/api/memories`, {
      method: 'POST',
      headers: { authorization: `Bearer ${team.keys.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Keys work as before, no CSRF token needed', category: 'notes' }),
    });
    expect(bearer.status).toBe(200);
    await tab.context.close();
  });

  it('logged neither the client secret, the session cookie nor the CSRF token', () => {
    const output = api.output();
    expect(output).toContain('"x-csrf-token":"[REDACTED]"');
    expect(output).not.toContain(csrf);
    expect(output).not.toMatch(/auth\/callback\?code=(?!\[REDACTED\])/);
    expect(output).not.toContain(CONSOLE_SECRET);
    expect(output).not.toContain(sessionCookie);
  });
});
