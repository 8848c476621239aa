import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openAs, startWebServer } from '../helpers/browser';
import type { TestServer } from '../helpers/server';
import { pasteDump } from '../helpers/dump-room';

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
  it('creates a room, lands in it as owner, opens the bundled example and takes dumps by drop and paste', async () => {
    const errors: string[] = [];
    const ada = await openAs(browser, server.url, 'Ada', errors);
    await ada.page.getByRole('textbox', { name: 'Room title' }).fill('Naive attention lab');
    await ada.page.getByRole('button', { name: 'Create room' }).click();
    await ada.page.getByRole('heading', { name: 'Naive attention lab' }).waitFor();
    await expect.poll(() => ada.page.getByRole('status', { name: 'Save status' }).textContent()).toContain('saved');
    await expect.poll(() => ada.page.getByRole('list', { name: 'Participants' }).textContent()).toContain('owner');
    await ada.page.getByRole('button', { name: 'Rename the room' }).click();
    await ada.page.getByRole('textbox', { name: 'New title' }).fill('Naive attention, week 3');
    await ada.page.keyboard.press('Enter');
    await ada.page.getByRole('heading', { name: 'Naive attention, week 3' }).waitFor();

    await ada.page.getByRole('button', { name: 'Open the attention example' }).click();
    const docs = ada.page.getByRole('list', { name: 'Documents' });
    for (const title of ['attention.jaxpr', 'attention.shlo', 'attention.hlo-opt']) await docs.getByText(title).waitFor();
    await ada.page.locator('.cm-line', { hasText: 'HloModule jit_attention' }).waitFor();
    // The room is told which document each upload opened.
    const participants = ada.page.getByRole('list', { name: 'Participants' });
    await expect.poll(() => participants.textContent()).toContain('attention.hlo-opt');

    await ada.page.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File(['HloModule dropped\n'], 'dropped.hlo', { type: 'text/plain' }));
      document.querySelector('.room')?.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await docs.getByText('dropped.hlo').waitFor();
    await ada.page.locator('.cm-line', { hasText: 'HloModule dropped' }).waitFor();
    await expect.poll(() => participants.textContent()).toContain('dropped.hlo');

    await pasteDump(ada.page, 'HloModule pasted\n', 'pasted.hlo');
    await docs.getByText('pasted.hlo').waitFor();
    await ada.page.locator('.cm-line', { hasText: 'HloModule pasted' }).waitFor();
    await expect.poll(() => participants.textContent()).toContain('pasted.hlo');
    expect(errors).toEqual([]);
    await ada.context.close();
  });
});
