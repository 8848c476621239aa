import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import type { Person } from '../helpers/browser';
import { openDumpRoom, type DumpRoom } from '../helpers/dump-room';
import { fixture } from '../helpers/ir-fixture';
import { lineOf, openDocument, splitPane, visibleLines } from './ir-kit';

const JAXPR = fixture('attention', 'jaxpr.txt');
const SHLO = fixture('attention', 'stablehlo-debug.mlir');
const HLO = fixture('attention', 'hlo-opt.txt');
const VIEWPORT = { width: 1440, height: 900 };

let lab: DumpRoom;
let ada: Person;
let bo: Person;
const errors: string[] = [];

/** The pane's scroller's offset from the top. */
function scrollTop(p: Locator): Promise<number> {
  return p.locator('.cm-scroller').evaluate((el) => el.scrollTop);
}

/** The line numbers of the pane's lit counterpart lines. */
function linkedLines(p: Locator): Promise<number[]> {
  return p.locator('.cm-line.cm-ir-linked').evaluateAll((els) =>
    els.map((el) => {
      // The line-number gutter element at the same height names the line.
      const top = el.getBoundingClientRect().top;
      const g = [...(el.closest('.cm-editor')?.querySelectorAll('.cm-lineNumbers .cm-gutterElement') ?? [])].find((x) => Math.abs(x.getBoundingClientRect().top - top) < 2);
      return Number(g?.textContent ?? Number.NaN);
    }),
  );
}

beforeAll(async () => {
  lab = await openDumpRoom({
    roomTitle: 'Attention at three layers',
    dumpTitle: 'attn.jaxpr',
    dump: JAXPR,
    more: [['attn.stablehlo', SHLO], ['attn.hlo-opt', HLO], ['notes.txt', 'a loose note\n'], ['mlp.jaxpr', fixture('mlp', 'jaxpr.txt')]],
    viewport: VIEWPORT,
    lineText: 'lambda',
  }, errors);
  ({ ada, bo } = lab);
});

afterAll(async () => {
  await lab?.close();
});

describe('split view follows the link', () => {
  it('three panes are readable at 1,440 × 900: none overflows sideways, and each shows most of a line', async () => {
    await openDocument(ada.page, 'attn.jaxpr', 'lambda');
    await ada.page.getByRole('button', { name: 'Split view' }).click();
    const panes = [splitPane(ada.page, 'attn.jaxpr'), splitPane(ada.page, 'attn.stablehlo'), splitPane(ada.page, 'attn.hlo-opt')];
    for (const p of panes) await p.locator('.cm-line').first().waitFor();
    const widths = await Promise.all(panes.map((p) => p.evaluate((el) => el.getBoundingClientRect().width)));
    for (const w of widths) expect(w).toBeGreaterThan(300);
    // The gutters leave the text at least four fifths of each pane.
    for (const p of panes) {
      const [gutter, pw] = await p.evaluate((el) => [el.querySelector('.cm-gutters')?.getBoundingClientRect().width ?? 0, el.getBoundingClientRect().width]);
      expect(gutter / pw).toBeLessThan(0.2);
    }
    const overflow = await ada.page.evaluate(() =>
      [...document.querySelectorAll('.split-view .group-bar, .split-view .pane-head, .centre .tabs')].filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.className),
    );
    expect(overflow).toEqual([]);
    // The side columns' bars keep every button whole.
    const clipped = await ada.page.evaluate(() =>
      [...document.querySelectorAll('aside')].flatMap((aside) => {
        const box = aside.getBoundingClientRect();
        return [...aside.querySelectorAll('button')].filter((b) => {
          const r = b.getBoundingClientRect();
          return r.width > 0 && r.top < box.top + 80 && (r.right > box.right + 0.5 || r.left < box.left - 0.5);
        }).map((b) => b.textContent);
      }),
    );
    expect(clipped).toEqual([]);
    expect(await ada.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    // A picture of the three panes to look at (SEAM_SCREENSHOT names where).
    await ada.page.screenshot({ path: process.env.SEAM_SCREENSHOT ?? join(tmpdir(), 'ir-split-follow-1440.png') });
  });

  it('hovering a jaxpr line whose HLO counterpart is off-screen scrolls the HLO pane to it, and leaves the jaxpr pane where it is', async () => {
    const j = splitPane(ada.page, 'attn.jaxpr');
    const h = splitPane(ada.page, 'attn.hlo-opt');
    // The final dot: its counterparts in the optimized HLO lie in the entry computation, at the bottom.
    const hloLast = await visibleLines(h);
    expect(await scrollTop(h)).toBe(0);
    const jTop = await scrollTop(j);
    await j.locator('.cm-line', { hasText: 'q:bf16[8192,128] = dot_general[' }).hover();
    await expect.poll(async () => (await visibleLines(h)).first, { timeout: 15_000 }).toBeGreaterThan(1);
    const lit = await linkedLines(h);
    expect(lit.length).toBeGreaterThan(0);
    const first = Math.min(...lit);
    // It was off-screen before, and is in view now.
    expect(first).toBeGreaterThan(hloLast.last);
    const now = await visibleLines(h);
    expect(first).toBeGreaterThanOrEqual(now.first);
    expect(first).toBeLessThanOrEqual(now.last);
    expect(await scrollTop(j)).toBe(jTop);
  });

  it('does not move a pane whose counterpart is already in view', async () => {
    const j = splitPane(ada.page, 'attn.jaxpr');
    const s = splitPane(ada.page, 'attn.stablehlo');
    const h = splitPane(ada.page, 'attn.hlo-opt');
    const before = await scrollTop(s);
    const shown = await visibleLines(s);
    const expLine = lineOf(SHLO, 'stablehlo.exponential');
    expect(expLine).toBeGreaterThanOrEqual(shown.first);
    expect(expLine).toBeLessThanOrEqual(shown.last);
    await j.locator('.cm-line', { hasText: 'k:bf16[8192,8192] = exp j' }).hover();
    await expect.poll(async () => (await s.locator('.cm-line.cm-ir-linked').allTextContents()).join('\n'), { timeout: 15_000 }).toContain('stablehlo.exponential');
    // The HLO pane, scrolled to the bottom by the dot, comes back up to the exponential's fusion: the line has settled.
    await expect.poll(async () => {
      const lit = await linkedLines(h);
      const v = await visibleLines(h);
      return lit.length > 0 && Math.min(...lit) >= v.first && Math.min(...lit) <= v.last;
    }, { timeout: 15_000 }).toBe(true);
    expect(await scrollTop(s)).toBe(before);
  });

  it('selecting a line scrolls the other panes at once', async () => {
    const j = splitPane(ada.page, 'attn.jaxpr');
    const h = splitPane(ada.page, 'attn.hlo-opt');
    // The pointer leaves the line it rested on, so that no hover still settling scrolls the HLO pane after it is put back at the top.
    await ada.page.mouse.move(0, 0);
    await h.locator('.cm-scroller').evaluate((el) => (el.scrollTop = 0));
    await expect.poll(() => scrollTop(h)).toBe(0);
    await j.locator('.cm-line', { hasText: 'q:bf16[8192,128] = dot_general[' }).click();
    await ada.page.mouse.move(0, 0);
    await expect.poll(() => scrollTop(h), { timeout: 15_000 }).toBeGreaterThan(0);
  });

  it('annotates a selection in a pane with the same toolbar as the single editor', async () => {
    const s = splitPane(ada.page, 'attn.stablehlo');
    const line = s.locator('.cm-line', { hasText: 'stablehlo.exponential' }).first();
    await line.click({ clickCount: 3 });
    const bubble = ada.page.getByRole('toolbar', { name: 'Annotate' });
    await bubble.getByRole('button', { name: 'Question' }).click();
    await ada.page.getByRole('textbox', { name: 'Comment' }).fill('why exp in bf16?');
    await ada.page.getByRole('textbox', { name: 'Comment' }).press('Enter');
    const panel = ada.page.getByRole('complementary').filter({ hasText: 'why exp in bf16?' });
    await panel.first().waitFor();
    // The mark lands in the StableHLO pane, on the exponential.
    const mark = s.locator('.cm-ann');
    await expect.poll(() => mark.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect((await mark.allTextContents()).join('')).toContain('stablehlo.exponential');
    const at = lineOf(SHLO, 'stablehlo.exponential');
    expect(at).toBeGreaterThan(0);
  });

  it('a follower sees the presenter\'s panes and their scroll', async () => {
    await ada.page.getByRole('button', { name: 'Present', exact: true }).click();
    await bo.page.getByRole('button', { name: 'Stop following' }).waitFor();
    // Split view was open before presenting began: the follower gets its panes before anything scrolls.
    await splitPane(bo.page, 'attn.hlo-opt').locator('.cm-line').first().waitFor({ timeout: 15_000 });
    const h = splitPane(ada.page, 'attn.hlo-opt');
    await h.locator('.cm-scroller').hover();
    await ada.page.mouse.wheel(0, 1200);
    await expect.poll(() => scrollTop(h)).toBeGreaterThan(0);
    const boH = splitPane(bo.page, 'attn.hlo-opt');
    await boH.locator('.cm-line').first().waitFor({ timeout: 15_000 });
    await splitPane(bo.page, 'attn.jaxpr').waitFor();
    await splitPane(bo.page, 'attn.stablehlo').waitFor();
    const adaTop = await visibleLines(h);
    await expect.poll(async () => (await visibleLines(boH)).first, { timeout: 15_000 }).toBeGreaterThanOrEqual(adaTop.first - 1);
    expect((await visibleLines(boH)).first).toBeLessThanOrEqual(adaTop.first + 1);
    // The presenter leaves split view: so does the follower.
    await ada.page.getByRole('button', { name: 'Split view' }).click();
    await expect.poll(() => bo.page.locator('.split-view').count(), { timeout: 15_000 }).toBe(0);
    await ada.page.getByRole('button', { name: 'Stop presenting' }).click();
  });

  it('clicking a document in the list while split view is open shows it', async () => {
    await ada.page.getByRole('button', { name: 'Split view' }).click();
    await splitPane(ada.page, 'attn.hlo-opt').locator('.cm-line').first().waitFor();
    // Another jaxpr takes the jaxpr pane; the other panes stay.
    await ada.page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: /mlp\.jaxpr/ }).click();
    await splitPane(ada.page, 'mlp.jaxpr').locator('.cm-line', { hasText: 'lambda' }).first().waitFor();
    expect(await ada.page.locator('.split-view .pane').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).toEqual(['Pane: mlp.jaxpr', 'Pane: attn.stablehlo', 'Pane: attn.hlo-opt']);
    // A document of no pane's kind: split view gives way to it.
    await openDocument(ada.page, 'notes.txt', 'a loose note');
    expect(await ada.page.locator('.split-view').count()).toBe(0);
    await expect.poll(() => ada.page.getByRole('button', { name: 'Split view' }).getAttribute('aria-pressed')).toBe('false');
    expect(errors).toEqual([]);
  });
});
