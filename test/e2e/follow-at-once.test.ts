import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Person } from '../helpers/browser';
import { openDumpRoom, selectLine, type DumpRoom } from '../helpers/dump-room';
import { addTrace } from '../helpers/server';
import { ATTENTION_TRACE_GZ as TRACE_GZ } from '../helpers/attention-capture';
import { fixture } from '../helpers/ir-fixture';
import { lineOf, openDocument, visibleLines } from './ir-kit';

const JAXPR = fixture('attention', 'jaxpr.txt');
const SHLO = fixture('attention', 'stablehlo-debug.mlir');
const HLO = fixture('attention', 'hlo-opt.txt');
/** The line Ada selects in the optimized HLO: the convert that narrows the S×S scores to bf16. */
const HLO_TEXT = 'ROOT %convert.59 = bf16[8192,8192]';
const HLO_LINE = lineOf(HLO, HLO_TEXT);

let lab: DumpRoom;
let ada: Person;
let bo: Person;
const errors: string[] = [];

/** Where the single editor is drawn (outside split view). */
const editorArea = (page: Page) => page.locator('.editor-area');

/** The title on the editor's tab: the document a person has open (outside split view). */
const openTitle = (page: Page) => page.locator('.tabs .tab').textContent();

/** The line numbers the editor's drawn selection covers (from its selection layer and the line gutter). */
function selectedLines(page: Page): Promise<number[]> {
  return page.locator('.editor-area .cm-editor').first().evaluate((ed) => {
    const gutters = [...ed.querySelectorAll('.cm-lineNumbers .cm-gutterElement')].filter((g) => /^\d+$/.test(g.textContent ?? ''));
    const out = new Set<number>();
    for (const s of ed.querySelectorAll('.cm-selectionBackground')) {
      const r = s.getBoundingClientRect();
      if (r.width < 2) continue;
      const g = gutters.find((x) => {
        const b = x.getBoundingClientRect();
        return b.top <= r.top + r.height / 2 && b.bottom >= r.top + r.height / 2;
      });
      if (g) out.add(Number(g.textContent));
    }
    return [...out].sort((a, b) => a - b);
  });
}

/** Scrolls the single editor so that 1-based `line` is at its top, as a scrollbar drag would. */
async function scrollToLine(page: Page, line: number): Promise<void> {
  await page.evaluate((n) => {
    const scroller = document.querySelector('.editor-area .cm-scroller') as HTMLElement;
    const h = (document.querySelector('.editor-area .cm-line') as HTMLElement).getBoundingClientRect().height;
    scroller.scrollTop = (n - 1) * h;
  }, line);
}

beforeAll(async () => {
  lab = await openDumpRoom({
    roomTitle: 'Follow at once',
    dumpTitle: 'attn.jaxpr',
    dump: JAXPR,
    more: [['attn.stablehlo', SHLO], ['attn.hlo-opt', HLO]],
    fill: (server, room) => addTrace(server, room.id, room.tokens.owner, 'attn.trace.json.gz', TRACE_GZ),
    viewport: { width: 1440, height: 900 },
    lineText: 'lambda',
  }, errors);
  ({ ada, bo } = lab);
});

afterAll(async () => {
  await lab?.close();
});

describe('Follow takes a student to the presenter at once', () => {
  it('when presenting begins, a student on another document goes to the presenter\'s document, line and selection before the presenter moves', async () => {
    await openDocument(ada.page, 'attn.hlo-opt', 'HloModule');
    // Ada brings the convert's line near the top and selects it, all before presenting.
    await scrollToLine(ada.page, HLO_LINE - 3);
    await selectLine(ada.page, HLO_TEXT);
    await expect.poll(async () => (await visibleLines(editorArea(ada.page), 1)).first).toBeGreaterThanOrEqual(HLO_LINE - 4);
    expect(await openTitle(bo.page)).toBe('attn.jaxpr');

    await ada.page.getByRole('button', { name: 'Present', exact: true }).click();
    await bo.page.getByText('Following Ada').waitFor();
    // Ada neither scrolls nor selects again: Bo is taken there all the same.
    await expect.poll(() => openTitle(bo.page)).toBe('attn.hlo-opt');
    await expect.poll(async () => Math.abs((await visibleLines(editorArea(bo.page), 1)).first - (await visibleLines(editorArea(ada.page), 1)).first)).toBeLessThanOrEqual(1);
    await expect.poll(() => selectedLines(bo.page)).toEqual([HLO_LINE]);
  });

  it('a student who went elsewhere and presses Follow is back on the presenter\'s document and line at once', async () => {
    await bo.page.keyboard.press('Escape');
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).waitFor();
    await openDocument(bo.page, 'attn.jaxpr', 'lambda');
    expect(await openTitle(bo.page)).toBe('attn.jaxpr');

    await bo.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await bo.page.getByText('Following Ada').waitFor();
    await expect.poll(() => openTitle(bo.page)).toBe('attn.hlo-opt');
    await expect.poll(async () => Math.abs((await visibleLines(editorArea(bo.page), 1)).first - (await visibleLines(editorArea(ada.page), 1)).first)).toBeLessThanOrEqual(1);
    await expect.poll(() => selectedLines(bo.page)).toEqual([HLO_LINE]);
  });

  it('follows the presenter switching document, to one without a line (the scratchpad) and back to a dump', async () => {
    await openDocument(ada.page, 'attn.stablehlo', 'module @jit_attention');
    await expect.poll(() => openTitle(bo.page)).toBe('attn.stablehlo');
    await expect.poll(async () => (await visibleLines(editorArea(bo.page), 1)).first).toBe(1);
    await ada.page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: /Scratchpad/ }).click();
    await expect.poll(() => openTitle(bo.page)).toBe('Scratchpad');
    await openDocument(ada.page, 'attn.jaxpr', 'lambda');
    await expect.poll(() => openTitle(bo.page)).toBe('attn.jaxpr');
  });

  it('a student pressing Follow while the presenter is on a trace gets the trace at the presenter\'s range', async () => {
    await ada.page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: /attn\.trace\.json\.gz/ }).click();
    const range = (page: Page) => page.getByLabel('Visible range').textContent();
    await ada.page.getByLabel('Visible range').waitFor({ timeout: 20_000 });
    // The student follows to the trace, then leaves for a dump of their own.
    await bo.page.getByLabel('Visible range').waitFor({ timeout: 20_000 });
    await bo.page.keyboard.press('Escape');
    await openDocument(bo.page, 'attn.hlo-opt', 'HloModule');
    // Ada zooms her timeline while Bo is away.
    const canvas = ada.page.locator('canvas[aria-label^="Timeline"]');
    await canvas.focus();
    await ada.page.keyboard.press('+');
    await ada.page.keyboard.press('+');
    const zoomed = await range(ada.page);
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await expect.poll(() => range(bo.page), { timeout: 20_000 }).toBe(zoomed);
  });

  it('a student pressing Follow while the presenter is in split view gets the panes', async () => {
    await bo.page.keyboard.press('Escape');
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).waitFor();
    await openDocument(ada.page, 'attn.hlo-opt', 'HloModule');
    await ada.page.getByRole('button', { name: 'Split view' }).click();
    await ada.page.getByRole('region', { name: 'Pane: attn.hlo-opt' }).locator('.cm-line').first().waitFor();
    const panes = (page: Page) => page.locator('.split-view .pane').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    const adaPanes = await panes(ada.page);
    expect(adaPanes.length).toBeGreaterThan(1);
    // Bo, not following, stays where he was.
    expect(await bo.page.locator('.split-view').count()).toBe(0);
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await expect.poll(() => panes(bo.page), { timeout: 15_000 }).toEqual(adaPanes);
    await ada.page.getByRole('button', { name: 'Stop presenting' }).click();
    await bo.page.getByText('Ada is presenting').waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  });
});
