import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openTab, signIn, type ConsoleTab } from '../support/browser';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { waitFor } from '../support/wait-for';

/**
 * The console's webhooks page in Chromium against the built API (in-process jobs, secrets encrypted
 * in the database): an admin registers a receiver, copies the secret shown once, and sees the
 * delivery of the next stored memory in the endpoint's log; a redeliver sends it again.
 */
describe('webhooks in the browser', () => {
  const team = teamFixture({
    REDIS_URL: '',
    DEFAULT_VISIBILITY: 'team',
    MEMORY_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
    OUTBOX_POLL_INTERVAL_MS: '100',
  });
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  let receiver: Server;
  let api: ApiProcess;
  let browser: Browser;
  let tab: ConsoleTab | undefined;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    [api, browser] = await Promise.all([startApiProcess(team.env), launchBrowser()]);
  });
  afterAll(async () => {
    await tab?.context.close();
    await browser?.close();
    await api?.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('registers an endpoint, shows its secret once, and lists its deliveries with a redeliver', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/memory`;
    tab = await openTab(browser, api.url);
    const { page } = tab;
    await signIn(page, team.keys.admin);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Webhooks', exact: true })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    const form = page.getByRole('form', { name: 'Register a webhook endpoint' });
    // The event checkboxes come from the service's catalogue (GET /api/admin/webhooks/events).
    await form.getByRole('checkbox', { name: 'session.ended' }).waitFor();
    await expect(form.getByRole('checkbox', { name: 'memory.created' }).isChecked()).resolves.toBe(true);
    await form.getByLabel('URL').fill(url);
    await form.getByLabel('Description').fill('deploy bot');
    await form.getByRole('button', { name: 'Register endpoint' }).click();
    const secret = await page.getByLabel('The signing secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'I have saved it' }).click();
    const row = page.locator('tr', { hasText: url });
    await expect(row.textContent()).resolves.toContain('enabled');

    const stored = await client(api.url, team.keys.alice).post<{ id: number }>('/api/memories', {
      content: 'The deploy bot posts to #releases',
    });
    const delivered = await waitFor(
      'the delivery',
      () => received.find((r) => r.body.includes(`"memory_id":${stored.body.id}`)),
      10_000,
    );
    expect(() =>
      new Webhook(secret).verify(delivered.body, delivered.headers as Record<string, string>),
    ).not.toThrow();

    await row.getByRole('button', { name: 'Deliveries' }).click();
    const panel = page.getByRole('region', { name: 'Deliveries' });
    const delivery = panel.locator('tbody tr', { hasText: 'memory.created' });
    await waitFor(
      'the delivery to show as delivered',
      async () => {
        if ((await delivery.count()) === 1 && (await delivery.textContent())?.includes('delivered'))
          return true;
        await panel.getByRole('button', { name: 'Refresh' }).click();
        return undefined;
      },
      10_000,
      200,
    );
    await delivery.getByRole('button', { name: /^Redeliver memory\.created/ }).click();
    await waitFor(
      'the redelivery',
      () =>
        received.filter((r) => r.headers['webhook-id'] === delivered.headers['webhook-id']).length === 2
          ? true
          : undefined,
      10_000,
    );
    expect(await page.content()).not.toContain(secret);
    expect(tab.errors).toEqual([]);
  });
});
