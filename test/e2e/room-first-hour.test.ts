import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Annotation } from '@seam/shared/model';
import { openAs, type Person } from '../helpers/browser';
import { openDumpRoom, type DumpRoom } from '../helpers/dump-room';
import { ATTENTION_HLO } from '../helpers/attention-capture';

/**
 * What a newcomer met in the room (issue 17), in Chromium: a dump that looks read-only (a label,
 * no caret) to a viewer and to everyone, annotation cards that say their line and time, and
 * filters that fit the side panel whatever the documents are called.
 */

const LONG_TITLE = `attention ${'with a document title far longer than the side panel is wide '.repeat(3)}.hlo`;
const errors: string[] = [];
let r: DumpRoom;
let cy: Person;
let annotation: Annotation;
const line = ATTENTION_HLO.split('\n').findIndex((l) => l.includes('convert_exponential_fusion = ')) + 1;

/** Whether any part of `selector` is drawn beyond the right edge of the annotations panel. */
async function overflowsPanel(page: Page, selector: string): Promise<boolean> {
  return page.evaluate((sel) => {
    const panel = document.querySelector('[aria-label="Annotations"]')!;
    const right = panel.getBoundingClientRect().right;
    return panel.scrollWidth > panel.clientWidth + 1 || [...panel.querySelectorAll(sel)].some((el) => el.getBoundingClientRect().right > right + 1);
  }, selector);
}

beforeAll(async () => {
  r = await openDumpRoom({ roomTitle: 'First hour', dumpTitle: LONG_TITLE, dump: ATTENTION_HLO, lineText: 'HloModule jit_attention' }, errors);
  cy = await openAs(r.browser, r.room.links.viewer, 'Cy', errors);
  await cy.page.locator('.cm-line', { hasText: 'HloModule jit_attention' }).waitFor();
  const docId = (await (await fetch(`${r.server.url}/api/rooms/${r.room.id}`, { headers: { authorization: `Bearer ${r.room.tokens.owner}` } })).json() as { documents: { id: string }[] }).documents[0]!.id;
  const from = ATTENTION_HLO.indexOf('convert_exponential_fusion = ');
  const res = await fetch(`${r.server.url}/api/rooms/${r.room.id}/annotations`, {
    method: 'POST', headers: { authorization: `Bearer ${r.room.tokens.annotator}`, 'content-type': 'application/json' },
    body: JSON.stringify({ docId, from, to: from + 'convert_exponential_fusion'.length, kind: 'spill', body: 'the scores, written then read back', author: { name: 'Bo' } }),
  });
  expect(res.status).toBe(201);
  annotation = (await res.json()) as Annotation;
}, 120_000);

afterAll(async () => {
  await r?.close();
});

describe('the room a newcomer opens', () => {
  it('shows a viewer the dump as read-only: a label and no caret, even after clicking into the text', async () => {
    const editor = cy.page.locator('.editor-host').first();
    await expect.poll(() => editor.getByText('read-only', { exact: true }).isVisible()).toBe(true);
    const first = cy.page.locator('.cm-line').first();
    const before = await first.textContent();
    await cy.page.locator('.cm-line', { hasText: 'HloModule jit_attention' }).first().click();
    expect(await cy.page.locator('.cm-editor').first().getAttribute('data-readonly')).toBe('true');
    expect(await cy.page.locator('.cm-cursorLayer').first().evaluate((el) => getComputedStyle(el).display)).toBe('none');
    expect(await cy.page.locator('.cm-cursor').first().isVisible()).toBe(false);
    // Typing changes nothing.
    await cy.page.keyboard.type('x');
    expect(await first.textContent()).toBe(before);
    // The owner's dump is read-only too, and says so.
    expect(await r.ada.page.locator('.editor-host').first().getByText('read-only', { exact: true }).isVisible()).toBe(true);
  });

  it('shows a viewer the room\'s notes as read-only too, while the owner gets an editable text without the label', async () => {
    for (const p of [cy, r.ada]) await p.page.getByRole('button', { name: 'TEXT Scratchpad' }).click();
    const notes = (p: Person) => p.page.locator('.editor-host[data-doc-id="notes"] .cm-editor');
    await notes(cy).waitFor();
    await notes(r.ada).waitFor();
    expect(await notes(cy).getByText('read-only', { exact: true }).isVisible()).toBe(true);
    expect(await notes(cy).getAttribute('data-readonly')).toBe('true');
    await notes(cy).locator('.cm-content').click();
    expect(await notes(cy).locator('.cm-cursor').first().isVisible()).toBe(false);
    expect(await notes(r.ada).getByText('read-only', { exact: true }).count()).toBe(0);
    expect(await notes(r.ada).getAttribute('data-readonly')).toBeNull();
    await notes(r.ada).locator('.cm-content').click();
    await expect.poll(() => notes(r.ada).locator('.cm-cursor').first().isVisible()).toBe(true);
    // Back to the dump for the cards below.
    for (const p of [cy, r.ada]) await p.page.getByRole('button', { name: new RegExp(`HLO·opt ${LONG_TITLE.slice(0, 20)}`) }).click();
  });

  it('gives each annotation card its line in the dump and the time it was written', async () => {
    for (const p of [r.ada, cy]) {
      const card = p.page.locator(`[data-annotation-id="${annotation.id}"]`);
      await expect.poll(() => card.locator('.lines').textContent()).toBe(`· line ${line}`);
      const time = card.locator('time');
      expect(await time.getAttribute('datetime')).toBe(new Date(annotation.createdAt).toISOString());
      const d = new Date(annotation.createdAt);
      expect(await time.textContent()).toBe(`${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`);
    }
  });

  it('keeps the filters and the cards inside the side panel with a very long document title', async () => {
    for (const p of [r.ada, cy]) {
      await p.page.locator(`[data-annotation-id="${annotation.id}"]`).waitFor();
      expect(await overflowsPanel(p.page, '.filters select, .thread')).toBe(false);
      // The long title is cut in the card, not wrapped over the panel.
      const title = p.page.locator(`[data-annotation-id="${annotation.id}"] .doc-title`);
      expect(await title.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    }
    expect(errors).toEqual([]);
  });
});
