import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openAs, startWebServer } from '../helpers/browser';
import { addDocument, createRoom, type CreatedRoom, type TestServer } from '../helpers/server';
import { fixture } from './ir-kit';

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
const errors: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, 'Small screens');
  await addDocument(server, room.id, room.tokens.owner, 'attention.hlo-opt-with-a-long-title.txt', fixture('attention', 'hlo-opt.txt'));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the room on a small laptop screen', () => {
  for (const [width, height] of [[1024, 768], [1280, 800]] as const) {
    it(`keeps the dump toolbar on one row and gives the dump most of a ${width} px window`, async () => {
      const p = await openAs(browser, room.links.owner, 'Ada', errors, { viewport: { width, height } });
      await p.page.locator('.cm-line', { hasText: 'HloModule jit_attention' }).waitFor();
      const bar = await p.page.locator('.tabs > *').evaluateAll((els) => els.map((e) => {
        const r = e.getBoundingClientRect();
        return { text: e.textContent?.trim() ?? '', middle: r.top + r.height / 2, height: r.height };
      }));
      expect(bar.map((b) => b.text)).toEqual(expect.arrayContaining(['Split view', 'Mapping', 'Export', 'Wrap lines']));
      // One row: every control is centred on the same line and none is two lines tall.
      const middles = bar.map((b) => b.middle);
      expect(Math.max(...middles) - Math.min(...middles), JSON.stringify(bar)).toBeLessThan(3);
      for (const b of bar) expect(b.height, b.text).toBeLessThan(32);
      const editor = await p.page.locator('.cm-editor').boundingBox();
      expect(editor!.width / width).toBeGreaterThanOrEqual(0.5);
      await p.context.close();
      expect(errors).toEqual([]);
    });
  }
});
