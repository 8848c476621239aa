import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openAs, startWebServer } from '../helpers/browser';
import { addDocument, createRoom, type CreatedRoom, type TestServer } from '../helpers/server';
import { fixture } from '../helpers/ir-fixture';

const DUMP = fixture('attention', 'hlo-opt.txt');
/** The editor's token styles (`cm-ir-t-*`), whose colours the painted tokens share. */
const TOKEN_STYLES = ['keyword', 'typeName', 'variableName', 'definition', 'function', 'propertyName', 'number', 'string', 'comment'];
/** WCAG AA for normal text. */
const MIN_CONTRAST = 4.5;

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
const errors: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, 'Themes and small screens');
  await addDocument(server, room.id, room.tokens.owner, 'attention.hlo-opt-with-a-long-title.txt', DUMP);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Contrast of each token style, and of the hover tooltip's text, against what is behind it. */
function contrasts(page: Page): Promise<Record<string, number>> {
  return page.evaluate((styles) => {
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const lum = (c: string) => {
      const [r = 0, g = 0, b = 0] = rgb(c).map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ratio = (a: string, b: string) => {
      const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
      return ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05);
    };
    const editor = document.querySelector('.cm-editor') as HTMLElement;
    const content = document.querySelector('.cm-content') as HTMLElement;
    const bg = getComputedStyle(editor).backgroundColor;
    const out: Record<string, number> = {};
    for (const s of styles) {
      const probe = document.createElement('span');
      probe.className = `cm-ir-t-${s}`;
      content.appendChild(probe);
      out[s] = ratio(getComputedStyle(probe).color, bg);
      probe.remove();
    }
    const tip = document.querySelector('.cm-ir-hover') as HTMLElement;
    out.tooltip = ratio(getComputedStyle(tip).color, getComputedStyle(tip.closest('.cm-tooltip') as HTMLElement).backgroundColor);
    return out;
  }, TOKEN_STYLES);
}

describe('light and dark themes', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`keeps every token colour and the hover tooltip readable in the ${colorScheme} theme`, async () => {
      const p = await openAs(browser, room.links.viewer, 'Vi', errors, { colorScheme });
      const line = p.page.locator('.cm-line', { hasText: '%multiply.1 = f32' });
      await line.waitFor();
      // The spill ranks come with the dump's index and widen the gutter: hover once they are in.
      await p.page.locator('.cm-spill-rank').first().waitFor({ state: 'attached' });
      await line.hover({ position: { x: 40, y: 5 } });
      await p.page.locator('.cm-ir-hover').waitFor();
      const measured = await contrasts(p.page);
      for (const [what, ratio] of Object.entries(measured)) expect(ratio, `${what} in ${colorScheme}`).toBeGreaterThanOrEqual(MIN_CONTRAST);
      await p.context.close();
      expect(errors).toEqual([]);
    });
  }
  it('lets the theme switch override the system scheme either way, and readably', async () => {
    const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    // The switch goes system → light → dark → system.
    const cases = [
      { colorScheme: 'light' as const, clicks: 2, expected: 'rgb(22, 24, 29)' },
      { colorScheme: 'dark' as const, clicks: 1, expected: 'rgb(255, 255, 255)' },
    ];
    for (const { colorScheme, clicks, expected } of cases) {
      const p = await openAs(browser, room.links.viewer, 'Vi', errors, { colorScheme });
      const line = p.page.locator('.cm-line', { hasText: '%multiply.1 = f32' });
      await line.waitFor();
      await p.page.locator('.cm-spill-rank').first().waitFor({ state: 'attached' });
      const system = await background(p.page);
      for (let i = 0; i < clicks; i++) await p.page.getByRole('button', { name: /^Theme: / }).click();
      expect(await background(p.page)).toBe(expected);
      await line.hover({ position: { x: 40, y: 5 } });
      await p.page.locator('.cm-ir-hover').waitFor();
      for (const [what, ratio] of Object.entries(await contrasts(p.page))) expect(ratio, `${what}, ${colorScheme} system, switched`).toBeGreaterThanOrEqual(MIN_CONTRAST);
      // Back to following the system.
      for (let i = clicks; i < 3; i++) await p.page.getByRole('button', { name: /^Theme: / }).click();
      expect(await background(p.page)).toBe(system);
      await p.context.close();
    }
    expect(errors).toEqual([]);
  });
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
