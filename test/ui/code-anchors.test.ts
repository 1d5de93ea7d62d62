import { randomBytes, randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openTab, screenshot, signIn, type ConsoleTab } from '../support/browser';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { waitFor } from '../support/wait-for';

interface Anchor {
  repo: string;
  path: string;
  symbol: string | null;
  line_start: number | null;
  line_end: number | null;
  commit: string | null;
  hash: string | null;
  state: string;
}
interface Read {
  id: number;
  anchors?: Anchor[];
  code_state?: string;
  branch?: string;
}

const blob = () => randomBytes(20).toString('hex');

/**
 * Memories about code in the console, in Chromium against the built API (its in-process queue
 * applies code events): anchors and their state on a memory, the stale badge on the list, Verify and
 * Correct…, and the anchor editor of the memory form.
 */
describe('code anchors in the browser', () => {
  const team = teamFixture({ REDIS_URL: '', DEFAULT_VISIBILITY: 'team' });
  const project = `github.com/acme/pay-${randomUUID().slice(0, 8)}`;
  let api: ApiProcess;
  let browser: Browser;
  let tab: ConsoleTab;
  const alice = () => client(api.url, team.keys.alice);
  const heading = (page: Page, name: string | RegExp) =>
    page.getByRole('heading', { level: 1, name, exact: true });
  const read = async (id: number) => {
    const res = await alice().get<Read>(`/api/memories/${id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const store = async (body: Record<string, unknown>) => {
    const res = await alice().post<{ id: number }>('/api/memories', { project, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id;
  };

  beforeAll(async () => {
    [api, browser] = await Promise.all([startApiProcess(team.env), launchBrowser()]);
    tab = await openTab(browser, api.url);
    await signIn(tab.page, team.keys.alice);
  });
  afterAll(async () => {
    await tab?.context.close();
    await browser?.close();
    await api?.stop();
  });

  it('shows a memory’s anchors, marks it stale once its file changes, and verifies it', async () => {
    const written = blob();
    const id = await store({
      content: 'charge() retries three times with an idempotency key',
      category: 'decisions',
      anchors: [
        {
          path: 'src/pay.ts',
          symbol: 'charge',
          line_start: 10,
          line_end: 42,
          commit: 'abc1234def',
          hash: written,
        },
      ],
    });
    const branched = await store({
      content: 'Retries move to the queue on this branch',
      branch: 'feature/retry',
    });
    const { page } = tab;

    await page.goto(`/ui/memories/${id}`);
    await heading(page, `Memory ${id}`).waitFor();
    const code = page.getByRole('region', { name: 'Code' });
    const anchor = code.getByRole('row').filter({ hasText: 'src/pay.ts#charge:10-42' });
    await anchor.waitFor();
    expect(await anchor.textContent()).toContain('@abc1234def');
    expect(await anchor.textContent()).toContain(project);
    expect(await anchor.textContent()).toContain('current');
    await expect(code.getByRole('button', { name: 'Verify' }).count()).resolves.toBe(0);

    const event = await alice().post<{ id: number }>('/api/code-events', {
      repo: project,
      after: 'fedcba9876543210',
      changes: [{ path: 'src/pay.ts', status: 'modified', hash: blob() }],
    });
    expect(event.status, JSON.stringify(event.body)).toBe(202);
    await waitFor('the memory to go stale', async () =>
      (await read(id)).code_state === 'stale' ? true : undefined,
    );

    await page.reload();
    await heading(page, `Memory ${id}`).waitFor();
    expect(await page.locator('.meta').first().textContent()).toContain('code stale');
    await expect.poll(() => anchor.textContent()).toContain('code changed since written');
    expect(await anchor.textContent()).toContain('commit fedcba987654');
    await screenshot(page, 'memory-code-stale');

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Memories', exact: true })
      .click();
    await heading(page, 'Memories').waitFor();
    const listed = page.getByRole('row').filter({ hasText: 'idempotency key' });
    await expect.poll(() => listed.textContent()).toContain('code stale');
    const onBranch = page.getByRole('row').filter({ hasText: 'Retries move to the queue' });
    await expect.poll(() => onBranch.textContent()).toContain('branch feature/retry');
    expect(await onBranch.textContent()).not.toContain('code');
    await screenshot(page, 'memories-code');
    expect((await read(branched)).branch).toBe('feature/retry');

    await listed.getByRole('link').click();
    await heading(page, `Memory ${id}`).waitFor();
    await code.getByRole('button', { name: 'Verify' }).click();
    await code.getByRole('status').filter({ hasText: 'Verified' }).waitFor();
    await expect.poll(() => anchor.textContent()).not.toContain('stale');
    expect(await anchor.textContent()).toContain('current');
    expect(await page.locator('.meta').first().textContent()).not.toContain('code stale');
    await expect(code.getByRole('button', { name: 'Verify' }).count()).resolves.toBe(0);
    expect((await read(id)).code_state).toBe('current');
  });

  it('sends a correction from the memory, which replaces it', async () => {
    const id = await store({
      content: 'Refunds are issued by refund() in src/refund.ts',
      anchors: [{ path: 'src/refund.ts', symbol: 'refund' }],
    });
    const { page } = tab;
    await page.goto(`/ui/memories/${id}`);
    const code = page.getByRole('region', { name: 'Code' });
    await code.getByRole('button', { name: 'Correct…' }).click();
    await code.getByLabel(/What holds now/).fill('Refunds are issued by the refunds worker, not refund()');
    await code.getByRole('button', { name: 'Send correction' }).click();
    const outcome = code.getByRole('status').filter({ hasText: 'Corrected by' });
    await outcome.waitFor();
    const correctionId = Number(/memory (\d+)/.exec((await outcome.textContent()) ?? '')![1]);
    const correction = await alice().get<{ content: string; links_out: Array<{ type: string; id: number }> }>(
      `/api/memories/${correctionId}`,
    );
    expect(correction.body.content).toContain('refunds worker');
    expect(correction.body.links_out).toContainEqual(expect.objectContaining({ type: 'supersedes', id }));
  });

  it('edits anchors in the memory form: creates with one, adds and removes, and shows a refusal', async () => {
    const { page } = tab;
    await page.goto('/ui/memories/new');
    await heading(page, 'New memory').waitFor();
    await page.getByLabel('Content').fill('Invoices round once, in roundTotal()');
    await page.getByLabel('Project').fill(project);
    await page.getByRole('button', { name: 'Add anchor' }).click();
    const first = page.getByRole('group', { name: 'Anchor 1' });
    await first.getByLabel('Path').fill('src/invoice.ts');
    await first.getByLabel('Symbol').fill('roundTotal');
    await page.getByRole('button', { name: 'Store memory' }).click();
    await heading(page, /^Memory \d+$/).waitFor();
    const id = Number(/\/memories\/(\d+)$/.exec(page.url())![1]);
    expect((await read(id)).anchors).toEqual([
      expect.objectContaining({
        repo: project,
        path: 'src/invoice.ts',
        symbol: 'roundTotal',
        state: 'current',
      }),
    ]);

    const kept = blob();
    const put = await alice().put(`/api/memories/${id}`, {
      anchors: [
        { path: 'src/invoice.ts', symbol: 'roundTotal' },
        { path: 'src/total.ts', commit: 'abcdef1', hash: kept },
      ],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    // An edit that leaves the anchors alone does not send them.
    await page.goto(`/ui/memories/${id}/edit`);
    await heading(page, `Edit memory ${id}`).waitFor();
    await page.getByRole('group', { name: 'Anchor 2' }).waitFor();
    await page.getByLabel('Importance (0–1)').fill('0.8');
    const untouched = page.waitForRequest((r) => r.method() === 'PUT');
    await page.getByRole('button', { name: 'Save' }).click();
    expect((await untouched).postDataJSON()).not.toHaveProperty('anchors');
    await heading(page, `Memory ${id}`).waitFor();

    await page.goto(`/ui/memories/${id}/edit`);
    await page.getByRole('button', { name: 'Remove anchor 1' }).click();
    await page.getByRole('button', { name: 'Add anchor' }).click();
    const added = page.getByRole('group', { name: 'Anchor 2' });
    await added.getByLabel('Path').fill('../outside.ts');
    await page.getByRole('button', { name: 'Save' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'relative to the repository root' });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('422');
    expect((await read(id)).anchors).toHaveLength(2);

    await added.getByLabel('Path').fill('src/rounding.ts');
    await added.getByLabel('First line').fill('3');
    await added.getByLabel('Last line').fill('9');
    await screenshot(page, 'memory-anchors-form');
    await page.getByRole('button', { name: 'Save' }).click();
    await heading(page, `Memory ${id}`).waitFor();
    const anchors = (await read(id)).anchors;
    expect(anchors).toEqual([
      expect.objectContaining({ repo: project, path: 'src/total.ts', commit: 'abcdef1', hash: kept }),
      expect.objectContaining({
        repo: project,
        path: 'src/rounding.ts',
        line_start: 3,
        line_end: 9,
        symbol: null,
      }),
    ]);
    await page.getByRole('region', { name: 'Code' }).getByText('src/rounding.ts:3-9').waitFor();

    // Removing every row removes the anchors.
    await page.goto(`/ui/memories/${id}/edit`);
    await page.getByRole('button', { name: 'Remove anchor 2' }).click();
    await page.getByRole('button', { name: 'Remove anchor 1' }).click();
    const cleared = page.waitForRequest((r) => r.method() === 'PUT');
    await page.getByRole('button', { name: 'Save' }).click();
    expect((await cleared).postDataJSON()).toMatchObject({ anchors: [] });
    await heading(page, `Memory ${id}`).waitFor();
    const after = await read(id);
    expect(after.anchors).toBeUndefined();
    expect(after.code_state).toBeUndefined();
    await expect(page.getByRole('region', { name: 'Code' }).count()).resolves.toBe(0);

    // The sign-in's admin probe answers a member 403 and the refused save 422; nothing else may fail.
    expect(tab.errors.filter((e) => !/status of (403|422)/.test(e))).toEqual([]);
  });
});
