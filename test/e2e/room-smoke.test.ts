import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openAs, startWebServer } from '../helpers/browser';
import type { TestServer } from '../helpers/server';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('lobby', () => {
  it('creates a room and lands in it as owner', async () => {
    const errors: string[] = [];
    const ada = await openAs(browser, server.url, 'Ada', errors);
    await ada.page.getByRole('textbox', { name: 'Room title' }).fill('Naive attention lab');
    await ada.page.getByRole('button', { name: 'Create room' }).click();
    await ada.page.getByRole('heading', { name: 'Naive attention lab' }).waitFor();
    await expect.poll(() => ada.page.getByRole('status', { name: 'Save status' }).textContent()).toContain('saved');
    await expect.poll(() => ada.page.getByRole('list', { name: 'Participants' }).textContent()).toContain('owner');
    expect(errors).toEqual([]);
    await ada.context.close();
  });
});
