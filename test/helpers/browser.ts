import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from './server';

/** Debian's Chromium, headless, with background traffic off. Browsers cannot be downloaded here. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
}

/** The built web app the server serves (`npm run build` makes it). */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** A test server that also serves the built web app. */
export function startWebServer(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({ env: { SEAM_WEB_DIR: WEB_DIST, ...env } });
}

/** One person in a browser context of their own, with a name and colour already chosen. */
export interface Person {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly name: string;
}

/**
 * Opens a fresh context (its own storage, so its own identity) and a page at `url`, answering the
 * first-visit identity form with `name`. Console errors are collected on `errors`; `options` go to
 * the context (a colour scheme, say).
 */
export async function openAs(browser: Browser, url: string, name: string, errors: string[] = [], options: BrowserContextOptions = {}): Promise<Person> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, ...options });
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(`${name}: ${e.message}`));
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Your name' }).fill(name);
  await page.getByRole('button', { name: 'Continue' }).click();
  return { context, page, name };
}
