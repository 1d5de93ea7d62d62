import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from './processes';

/** Debian's chromium, installed by scripts/ensure-chromium.sh; Playwright downloads no browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, 'test-results', 'ui');

/**
 * A headless browser with a profile of its own (Playwright gives each launch a fresh temporary
 * user-data-dir) that makes no request of its own: no sync, updates, QUIC or background fetches.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: run bash scripts/ensure-chromium.sh (npm test does)`);
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** One person's tab on the console, with what it requested and any CSP violation it reported. */
export interface ConsoleTab {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Every URL the page requested. */
  readonly requests: string[];
  /** Console errors (a CSP violation is reported there). */
  readonly errors: string[];
}

export async function openTab(
  browser: Browser,
  baseUrl: string,
  options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {},
): Promise<ConsoleTab> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    colorScheme: options.colorScheme ?? 'light',
    viewport: options.viewport ?? { width: 1200, height: 800 },
    reducedMotion: 'reduce',
  });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { context, page, requests, errors };
}

/** Signs in on the login view with `key` and waits for the overview. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.goto('/ui/');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}
