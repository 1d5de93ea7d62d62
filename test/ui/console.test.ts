import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeVault } from '@app/testing';
import { launchBrowser, openTab, screenshot, signIn, type ConsoleTab } from '../support/browser';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import {
  startApiProcess,
  startWorkerProcess,
  type ApiProcess,
  type WorkerProcess,
} from '../support/processes';
import { withDb } from '../support/superuser-db';

// The page's own globals, used in code that runs in the browser (page.evaluate); this program is
// type-checked without the DOM library.
declare const sessionStorage: { readonly length: number; readonly [key: string]: unknown };
declare const localStorage: { readonly [key: string]: unknown };
declare const document: {
  readonly activeElement: { readonly textContent: string | null; readonly tagName: string } | null;
  readonly body: object;
  readonly documentElement: { readonly scrollWidth: number; readonly clientWidth: number };
};
declare function getComputedStyle(element: object): { readonly backgroundColor: string };

// Generated at run time: nothing secret-shaped is committed.
const secretWord = () => `Pw-${randomBytes(9).toString('base64url')}`;
const PLANTED_SECRETS = 30;

/**
 * The web console in Chromium against the built API and worker (real Postgres, Redis, and the fake
 * Vault): what a member and an admin do there, and that the key stays in its header.
 */
describe('web console in the browser', () => {
  const vault = new FakeVault();
  let team: ReturnType<typeof teamFixture>;
  let api: ApiProcess;
  let worker: WorkerProcess;
  let browser: Browser;
  const tabs: ConsoleTab[] = [];
  let alice: ConsoleTab;
  let memoryId: number;
  let sensitiveId: number;
  let sensitiveSecret: string;

  const tab = async (options?: Parameters<typeof openTab>[2]) => {
    const opened = await openTab(browser, api.url, options);
    tabs.push(opened);
    return opened;
  };
  const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const nav = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();

  beforeAll(async () => {
    const address = await vault.start();
    team = teamFixture({
      VAULT_ADDR: address,
      VAULT_TOKEN: vault.rootToken,
      VAULT_TIMEOUT_MS: '2000',
      SECRET_MIGRATION_BATCH_SIZE: '3',
    });
    [api, worker, browser] = await Promise.all([
      startApiProcess(team.env),
      startWorkerProcess(team.env),
      launchBrowser(),
    ]);
    const asAlice = client(api.url, team.keys.alice);
    const session = await asAlice.post<{ id: string }>('/api/sessions', {
      agent: 'claude-code',
      project: 'github.com/acme/billing',
      git_branch: 'fix/invoice-rounding',
    });
    await asAlice.post(`/api/sessions/${session.body.id}/events`, {
      events: [
        { kind: 'prompt', payload: { text: 'Why do invoice totals drift by a cent?' } },
        { kind: 'tool_call', payload: { tool: 'grep -rn "toFixed" src/invoices' } },
        { kind: 'observation', payload: { text: 'Totals are rounded per line, then summed' } },
        { kind: 'note', payload: { text: 'Round once, at the invoice total' } },
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([api?.stop(), worker?.stop()]);
    await vault.stop();
  });

  it('refuses a wrong key, then signs in with a real one kept in session storage only', async () => {
    alice = await tab();
    const { page } = alice;
    await page.goto('/ui/');
    await page.getByLabel('API key').fill(`wrong-${randomBytes(8).toString('hex')}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('That key was refused');
    await screenshot(page, 'login');

    await signIn(page, team.keys.alice);
    expect(await page.evaluate(() => Object.values(sessionStorage))).toContain(team.keys.alice);
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain(team.keys.alice);
    expect(page.url()).not.toContain(team.keys.alice);
  });

  it('creates a memory and finds it by search, with the explain scores', async () => {
    const { page } = alice;
    await nav(page, 'Memories');
    await page.getByRole('link', { name: 'New memory' }).click();
    await heading(page, 'New memory').waitFor();
    await page.getByLabel('Content').fill('Invoice totals are rounded once, at the total, never per line');
    await page.getByLabel('Category').fill('decisions');
    await page.getByLabel('Tags (comma-separated)').fill('billing,rounding');
    await page.getByLabel('Visibility').selectOption('private');
    await page.getByRole('button', { name: 'Store memory' }).click();
    await heading(page, /^Memory \d+$/).waitFor();
    memoryId = Number(/\/memories\/(\d+)$/.exec(page.url())![1]);
    expect(await page.getByLabel('Content').textContent()).toContain('rounded once');

    await nav(page, 'Search');
    await page.getByLabel('What are you looking for?').fill('how are invoice totals rounded');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const hit = page.getByRole('row').filter({ has: page.getByRole('link', { name: /rounded once/ }) });
    await hit.waitFor();
    const scores = hit.getByLabel(`Scores of memory ${memoryId}`);
    expect(await scores.textContent()).toMatch(/fused\s*\d\.\d{3}.*text\s*\d/);
    // How much of the query the memory holds, and what each leg weighed in this recall.
    expect(await scores.textContent()).toMatch(/covers \d{1,3}% of the query/);
    expect(await scores.textContent()).toMatch(/weights\s*text \d\.\d{2} · vector \d\.\d{2}/);
    await screenshot(page, 'search');
  });

  it('shares the memory with bob, who then sees it in his own view', async () => {
    const { page } = alice;
    await page.goto(`/ui/memories/${memoryId}`);
    await page.getByLabel('Share with (username)').fill('bob');
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Shared with bob (read).' }).waitFor();
    await page.getByRole('button', { name: 'Stop sharing with bob' }).waitFor();
    await screenshot(page, 'memory-detail');

    const bob = await tab();
    await signIn(bob.page, team.keys.bob);
    await nav(bob.page, 'Memories');
    const row = bob.page.getByRole('row').filter({ hasText: 'rounded once' });
    await row.waitFor();
    expect(await row.textContent()).toContain('alice');
    expect(await row.textContent()).toContain('shared');
    await screenshot(bob.page, 'memories-bob');
    await row.getByRole('link').click();
    await heading(bob.page, `Memory ${memoryId}`).waitFor();
    expect(await bob.page.locator('.meta').first().textContent()).toContain('shared with you');
  });

  it('shows the versions of a memory with a diff with the current text, and restores one', async () => {
    const { page } = alice;
    const edited = await client(api.url, team.keys.alice).put(`/api/memories/${memoryId}`, {
      content: 'Invoice totals are rounded per line, then summed',
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    await page.goto(`/ui/memories/${memoryId}`);
    const versions = page.getByRole('table', { name: 'Versions' });
    await versions.getByRole('row').filter({ hasText: 'content by alice' }).waitFor();
    await versions.getByRole('button', { name: 'Diff with current' }).click();
    const diff = page.getByRole('region', { name: /^Diff of version 1/ });
    await diff.waitFor();
    expect(await diff.locator('.diff-delete').textContent()).toContain('rounded once');
    expect(await diff.locator('.diff-insert').textContent()).toContain('rounded per line');
    await diff.scrollIntoViewIfNeeded();
    await screenshot(page, 'memory-versions');

    await versions.getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Restore' }).click();
    await expect.poll(() => page.getByLabel('Content').textContent()).toContain('rounded once');
    // The text it replaced is version 2 now.
    await expect.poll(() => versions.getByRole('row').count()).toBe(3);
  });

  it('reveals a sensitive memory after confirmation, and refuses a key without the secrets:read scope', async () => {
    const { page } = alice;
    sensitiveSecret = secretWord();
    await page.goto('/ui/memories/new');
    await page.getByLabel('Content').fill(`staging database password: ${sensitiveSecret}`);
    await page.getByLabel('Category').fill('infra');
    await page.getByLabel(/whole text is secret/).check();
    await page.getByRole('button', { name: 'Store memory' }).click();
    await heading(page, /^Memory \d+$/).waitFor();
    sensitiveId = Number(/\/memories\/(\d+)$/.exec(page.url())![1]);
    expect(await page.getByLabel('Content').textContent()).not.toContain(sensitiveSecret);

    await page.getByRole('button', { name: 'Reveal secret…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reveal the secret?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.getByText(sensitiveSecret).count()).toBe(0);

    await page.getByRole('button', { name: 'Reveal secret…' }).click();
    await dialog.getByRole('button', { name: 'Reveal' }).click();
    const revealed = page.getByRole('region', { name: 'Revealed secret' });
    await revealed.waitFor();
    expect(await revealed.textContent()).toContain(sensitiveSecret);
    await screenshot(page, 'reveal');

    const readOnlyKey = await client(api.url, team.keys.admin).post<{ key: string }>(
      '/api/admin/users/alice/keys',
      { name: 'no secrets', scopes: ['memories:read', 'memories:write'] },
    );
    expect(readOnlyKey.status).toBe(201);
    const limited = await tab();
    await signIn(limited.page, readOnlyKey.body.key);
    await limited.page.goto(`/ui/memories/${sensitiveId}`);
    await limited.page.getByRole('button', { name: 'Reveal secret…' }).click();
    await limited.page.getByRole('dialog').getByRole('button', { name: 'Reveal' }).click();
    const refusal = limited.page.getByRole('alert').filter({ hasText: 'Not revealed' });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('secrets:read');
    expect(await limited.page.content()).not.toContain(sensitiveSecret);
  });

  it("revokes a key from the admin view; that key's browser session goes back to sign-in", async () => {
    const admin = await tab();
    await signIn(admin.page, team.keys.admin);
    await nav(admin.page, 'Users & keys');
    await admin.page.getByRole('button', { name: 'Keys of bob' }).click();
    await admin.page.getByLabel('Key name').fill('bob laptop');
    await admin.page.getByRole('button', { name: 'Create key' }).click();
    const shownKey = admin.page.getByLabel('The new API key');
    await shownKey.waitFor();
    const bobsKey = await shownKey.inputValue();
    expect(bobsKey.length).toBeGreaterThan(20);
    await admin.page.getByRole('button', { name: 'I have saved it' }).click();
    await expect.poll(() => admin.page.getByLabel('The new API key').count()).toBe(0);
    await screenshot(admin.page, 'users-keys');

    const laptop = await tab();
    await signIn(laptop.page, bobsKey);

    const row = admin.page.getByRole('row').filter({ hasText: 'bob laptop' });
    await row.getByRole('button', { name: /^Revoke key/ }).click();
    await admin.page
      .getByRole('dialog', { name: 'Revoke this key?' })
      .getByRole('button', { name: 'Revoke' })
      .click();
    await row.getByText('revoked').waitFor();

    expect((await client(api.url, bobsKey).get('/api/memories')).status).toBe(401);
    await nav(laptop.page, 'Memories');
    await laptop.page.getByLabel('API key').waitFor();
    expect(await laptop.page.getByRole('status').textContent()).toContain('The service refused your key');
    expect(await laptop.page.evaluate(() => sessionStorage.length)).toBe(0);
    await screenshot(laptop.page, 'signed-out-after-revoke');
  });

  it('starts a secret migration and follows its progress until it is done', async () => {
    await plantClearTextSecrets(team.tenant, PLANTED_SECRETS);
    const admin = await tab();
    await signIn(admin.page, team.keys.admin);
    await nav(admin.page, 'Jobs');
    // Slow Vault writes down so the run lasts long enough to be watched.
    vault.faults.latencyMs = 40;
    try {
      await admin.page.getByRole('button', { name: 'Migrate secrets to the secret store' }).click();
      const tracked = admin.page.getByRole('region', { name: /^Job / });
      await tracked.waitFor();
      const progress = tracked.getByRole('progressbar', { name: 'secrets.migrate progress' });
      await expect
        .poll(async () => Number(await progress.getAttribute('value')), { timeout: 60_000 })
        .toBeGreaterThan(0);
      await screenshot(admin.page, 'jobs');
      await tracked.getByText('succeeded').waitFor({ timeout: 90_000 });
    } finally {
      vault.faults.latencyMs = 0;
    }
    const figures = await admin.page.getByRole('region', { name: /^Job / }).textContent();
    expect(figures).toContain(`migrated ${PLANTED_SECRETS}`);
    expect(figures).toContain(`found ${PLANTED_SECRETS}`);
    await screenshot(admin.page, 'jobs-done');

    await nav(admin.page, 'Audit log');
    await admin.page.getByLabel('Action (api_key.* for a prefix)').fill('api_key.*');
    await admin.page.getByLabel('Action (api_key.* for a prefix)').press('Enter');
    await admin.page.getByRole('cell', { name: 'api_key.revoke' }).first().waitFor();
    await screenshot(admin.page, 'audit');
  });

  it('shows sessions with their timeline', async () => {
    const { page } = alice;
    await nav(page, 'Sessions');
    await page.getByRole('link', { name: /claude-code · github.com\/acme\/billing/ }).click();
    await heading(page, /^Session claude-code/).waitFor();
    await page.getByText('Round once, at the invoice total').waitFor();
    const kinds = await page.locator('.timeline .badge').allTextContents();
    expect(kinds).toEqual(['prompt', 'tool_call', 'observation', 'note']);
    await screenshot(page, 'session-timeline');
  });

  it('can be driven with the keyboard alone through the main navigation', async () => {
    const { page } = alice;
    await page.goto('/ui/');
    await heading(page, 'Overview').waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim());
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Overview');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Memories');
    await page.keyboard.press('Enter');
    await heading(page, 'Memories').waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/memories');
    // The new view's heading (not the link just used) has the focus; Tab goes on into the view.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    expect(await focused()).toBe('Memories');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('New memory');
  });

  it('charts memories over time by category and author, recall latency and queue depth', async () => {
    const { page } = await tab({ viewport: { width: 1200, height: 1000 } });
    await signIn(page, team.keys.alice);
    const byCategory = page.getByRole('img', { name: /^By category: / });
    await byCategory.waitFor();
    // The two memories made here and her half of the planted legacy ones (facts and bugs); bob's
    // private half (decisions, preferences) is his, and not in her charts.
    const categories = await byCategory.getAttribute('aria-label');
    expect(categories).toMatch(/bugs: \d+, (.+, )?facts: \d+, infra: 1/);
    expect(categories).not.toContain('preferences');
    const authors = await page.getByRole('img', { name: /^By author: / }).getAttribute('aria-label');
    expect(authors).toContain(`alice: ${PLANTED_SECRETS / 2 + 2}`);
    expect(authors).not.toContain('bob');
    // The replica's recall latency and the queue are an admin's.
    const admin = await tab({ viewport: { width: 1200, height: 1000 } });
    await signIn(admin.page, team.keys.admin);
    const latency = admin.page.getByRole('img', { name: /^Recall latency p95, latest \d/ });
    await latency.waitFor();
    await admin.page.getByRole('img', { name: /^Queue depth, latest \d+ jobs/ }).waitFor();
    await screenshot(admin.page, 'overview');
  });

  it('fits a phone screen: the navigation wraps, nothing scrolls sideways', async () => {
    const phone = await tab({ viewport: { width: 390, height: 844 } });
    await signIn(phone.page, team.keys.admin);
    await nav(phone.page, 'Memories');
    await heading(phone.page, 'Memories').waitFor();
    await phone.page.getByRole('row').nth(1).waitFor();
    const overflow = await phone.page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(phone.page, 'memories-phone');
  });

  it('follows a dark system setting', async () => {
    const dark = await tab({ colorScheme: 'dark' });
    await signIn(dark.page, team.keys.admin);
    const background = await dark.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe('rgb(18, 21, 26)');
    await dark.page.getByRole('img', { name: /^By category: / }).waitFor();
    await screenshot(dark.page, 'overview-dark');
    const light = await tab({ colorScheme: 'light' });
    await light.page.goto('/ui/');
    expect(await light.page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
      'rgb(247, 248, 250)',
    );
  });

  it('sent every key in a header only, asked nothing of another origin, and broke no CSP rule', () => {
    const keys = Object.values(team.keys);
    for (const opened of tabs) {
      for (const url of opened.requests) {
        expect(new URL(url).origin).toBe(api.url);
        for (const key of keys) expect(url).not.toContain(key);
      }
      // A refused key answers 401, which the browser reports as a failed resource; nothing else.
      const unexpected = opened.errors.filter((e) => !/status of 40[13]/.test(e));
      expect(unexpected).toEqual([]);
    }
    for (const key of keys) expect(api.output()).not.toContain(key);
  });
});

/**
 * Memories stored in clear before secret detection existed (what the migration moves to Vault),
 * alice's and bob's in turn, spread over the last two weeks and four categories.
 */
async function plantClearTextSecrets(tenant: string, count: number): Promise<void> {
  await withDb(async (db) => {
    const { rows } = await db.query<{ tenant_id: string; id: string; username: string }>(
      `SELECT u.tenant_id, u.id, u.username FROM users u JOIN tenants t ON t.id = u.tenant_id
        WHERE t.slug = $1 AND u.username IN ('alice', 'bob') ORDER BY u.username`,
      [tenant],
    );
    const contents = Array.from(
      { length: count },
      (_, i) =>
        `legacy note ${i}: postgres://svc${i}:${randomBytes(9).toString('base64url')}@db-${i}:5432/app`,
    );
    await db.query(
      `INSERT INTO memories (tenant_id, owner_id, content, content_hash, category, created_at, updated_at)
       SELECT $1, ($2::uuid[])[1 + n % 2], c, sha256(convert_to(c, 'UTF8')),
              (ARRAY['facts', 'decisions', 'bugs', 'preferences'])[1 + n % 4],
              now() - ((n % 14) * interval '1 day'), now() - ((n % 14) * interval '1 day')
         FROM unnest($3::text[]) WITH ORDINALITY AS v(c, n)`,
      [rows[0].tenant_id, rows.map((r) => r.id), contents],
    );
  });
}
