import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openTab, signIn, type ConsoleTab } from '../support/browser';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { startApiProcess, type ApiProcess } from '../support/processes';

/**
 * The console's review queue in Chromium against the built API: bob's proposed correction of
 * alice's team memory shows for her, she accepts it there, and recall then serves the correction.
 */
describe('review queue in the browser', () => {
  const team = teamFixture({ REDIS_URL: '', DEFAULT_VISIBILITY: 'team' });
  const m = `m${randomUUID().slice(0, 8)}`;
  let api: ApiProcess;
  let browser: Browser;
  let tab: ConsoleTab | undefined;

  beforeAll(async () => {
    [api, browser] = await Promise.all([startApiProcess(team.env), launchBrowser()]);
  });
  afterAll(async () => {
    await tab?.context.close();
    await browser?.close();
    await api?.stop();
  });

  it('lists bob’s proposal for alice, who accepts it; recall then serves it', async () => {
    const alice = client(api.url, team.keys.alice);
    const fact = (
      await alice.post<{ id: number }>('/api/memories', { content: `The ${m} cache is Memcached` })
    ).body.id;
    const proposal = await client(api.url, team.keys.bob).post<{ id: number; review_state: string }>(
      '/api/memories',
      { content: `The ${m} cache is Redis 7 since March`, supersedes: fact },
    );
    expect(proposal.body.review_state).toBe('proposed');

    tab = await openTab(browser, api.url);
    const { page } = tab;
    await signIn(page, team.keys.alice);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Review', exact: true })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
    const item = page.locator('li.proposal', { hasText: `The ${m} cache is Redis 7 since March` });
    await expect(item.textContent()).resolves.toContain(`corrects #${fact}`);
    await item.getByRole('button', { name: `Accept #${proposal.body.id}` }).click();
    await page.getByText('No proposals wait for review.').waitFor();

    const recalled = await alice.post<{ memories: Array<{ id: number; redirected_from?: number }> }>(
      '/api/memories/recall',
      { context: `${m} cache` },
    );
    expect(recalled.body.memories[0]).toMatchObject({ id: proposal.body.id, redirected_from: fact });
    // The sign-in's admin probe answers a member 403; nothing else may fail (a CSP violation would).
    expect(tab.errors.filter((e) => !/status of 403/.test(e))).toEqual([]);
  });
});
