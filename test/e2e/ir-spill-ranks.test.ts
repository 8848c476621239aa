import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openDumpRoom, type DumpRoom } from '../helpers/dump-room';
import { fixture } from '../helpers/ir-fixture';

const DUMP = fixture('attention', 'hlo-opt.txt');

let lab: DumpRoom;
const errors: string[] = [];

/** Every drawn spill mark of the editor with its line number, prominence, and whether it lies inside the editor's box. */
function spillMarks(page: Page): Promise<{ line: number; text: string; top: boolean; inside: boolean }[]> {
  return page.evaluate(() => {
    const box = (document.querySelector('.cm-scroller') as HTMLElement).getBoundingClientRect();
    const numbers = [...document.querySelectorAll('.cm-lineNumbers .cm-gutterElement')].filter((g) => /^\d+$/.test(g.textContent ?? ''));
    // The gutter's spacer (hidden) holds the widest mark, not a line's.
    const marks = [...document.querySelectorAll('.cm-spill-rank')].filter((m) => getComputedStyle(m).visibility !== 'hidden');
    return marks.map((m) => {
      const r = m.getBoundingClientRect();
      const g = numbers.find((x) => {
        const b = x.getBoundingClientRect();
        return b.top <= r.top + r.height / 2 && b.bottom >= r.top + r.height / 2;
      });
      return { line: Number(g?.textContent ?? Number.NaN), text: m.textContent ?? '', top: m.classList.contains('cm-spill-rank-top'), inside: r.left >= box.left && r.right <= box.right };
    });
  });
}

beforeAll(async () => {
  lab = await openDumpRoom({ roomTitle: 'Naive attention lab', dumpTitle: 'attention.hlo-opt.txt', dump: DUMP, lineText: 'HloModule jit_attention' }, errors);
  await lab.ada.page.setViewportSize({ width: 1440, height: 900 });
});

afterAll(async () => {
  await lab?.close();
});

describe('spill ranks beside the optimized HLO of naive attention', () => {
  it('ranks each of the 14 spills with its size, makes the four largest prominent, and keeps every mark on screen without wrapping', async () => {
    const page = lab.ada.page;
    // The gutter's spacer takes the widest rank once the analysis has arrived.
    await page.locator('.cm-spill-rank').first().waitFor({ state: 'attached', timeout: 20_000 });
    // A window tall enough for all 167 lines: every mark is drawn at once.
    await page.setViewportSize({ width: 1440, height: 3600 });
    await expect.poll(async () => (await spillMarks(page)).length).toBe(14);
    const marks = await spillMarks(page);
    expect(marks.length).toBe(14);
    expect(marks.filter((m) => m.top).map((m) => m.text).sort()).toEqual(['#1 · 256 MiB', '#1 · 256 MiB', '#1 · 256 MiB', '#4 · 128 MiB']);
    expect(marks.filter((m) => !m.top).map((m) => m.text)).toContain('#14 · 16 KiB');
    expect(marks.every((m) => m.inside)).toBe(true);
    expect(new Set(marks.map((m) => m.line)).size).toBe(14);
    // No spill badge at a line's end any more: every line, the long ones too, keeps one line's height.
    expect(await page.locator('.cm-ir-badge-spill').count()).toBe(0);
    const heights = await page.locator('.cm-line').evaluateAll((els) => [...new Set(els.map((e) => Math.round(e.getBoundingClientRect().height)))]);
    expect(heights.length).toBe(1);
    await page.setViewportSize({ width: 1440, height: 900 });

    // Scrolled all the way sideways on the longest lines, the ranks stay in view.
    const convert = page.locator('.cm-line', { hasText: '%convert_exponential_fusion = f32[8192,8192]' }).first();
    await page.locator('.cm-scroller').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await convert.waitFor();
    await page.locator('.cm-scroller').evaluate((el) => (el.scrollLeft = el.scrollWidth));
    const rank = page.locator('.cm-spill-rank-top').last();
    const [r, s] = await Promise.all([rank.boundingBox(), page.locator('.cm-scroller').boundingBox()]);
    expect(r!.x).toBeGreaterThanOrEqual(s!.x);
    expect(r!.x + r!.width).toBeLessThanOrEqual(s!.x + s!.width);
    await page.locator('.cm-scroller').evaluate((el) => (el.scrollLeft = 0));
    await page.screenshot({ path: '/tmp/spill-ranks.png' });
  });

  it('draws each spill as a bar filled by its share in an editor too narrow for labels, the label in its title', async () => {
    const page = lab.ada.page;
    await page.setViewportSize({ width: 900, height: 3600 });
    const bars = page.locator('.cm-spill-rank-bar');
    await expect.poll(() => bars.evaluateAll((els) => els.filter((e) => getComputedStyle(e).visibility !== 'hidden').length)).toBe(14);
    const top = await page.locator('.cm-spill-rank-bar.cm-spill-rank-top').evaluateAll((els) => els.filter((e) => getComputedStyle(e).visibility !== 'hidden').map((e) => e.getAttribute('aria-label')));
    expect(top.sort()).toEqual(['#1 · 256 MiB', '#1 · 256 MiB', '#1 · 256 MiB', '#4 · 128 MiB']);
    expect(await page.locator('.cm-spill-rank-bar[aria-label="#4 · 128 MiB"]').first().getAttribute('title')).toMatch(/^#4 · 128 MiB · Spill #4 of 14: wrapped_convert\.2, 134,217,728 B \(50% of the largest\)/);
    await page.setViewportSize({ width: 1440, height: 900 });
    expect(errors).toEqual([]);
  });
});
