import type { Locator, Page } from 'playwright-core';

/** Opens a document from the room's document list and waits for a line of its text. */
export async function openDocument(page: Page, title: string, lineText: string): Promise<void> {
  await page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: new RegExp(title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) }).click();
  await page.locator('.cm-line', { hasText: lineText }).first().waitFor();
}

/** A pane of split view, by its document's title. */
export function splitPane(page: Page, title: string): Locator {
  return page.getByRole('region', { name: `Pane: ${title}` });
}

/**
 * The 1-based numbers of the first and last lines wholly inside the first editor's scroller within
 * `area` (a pane, the editor area), read from the line-number gutter; `slack` pixels either way are
 * allowed (none by default). When no line is drawn there, `first` is Infinity and `last` -Infinity,
 * so that no line counts as shown (a pane still drawing is not yet anywhere).
 */
export function visibleLines(area: Locator, slack = 0): Promise<{ first: number; last: number }> {
  return area.locator('.cm-scroller').first().evaluate((el, px) => {
    const box = el.getBoundingClientRect();
    const nums = [...el.querySelectorAll('.cm-lineNumbers .cm-gutterElement')]
      .filter((g) => {
        const r = g.getBoundingClientRect();
        return r.height > 0 && r.top >= box.top - px && r.bottom <= box.bottom + px && /^\d+$/.test(g.textContent ?? '');
      })
      .map((g) => Number(g.textContent));
    return { first: Math.min(...nums), last: Math.max(...nums) };
  }, slack);
}

/** Whether 1-based `line` is wholly inside the first editor's scroller within `area` (see {@link visibleLines}). */
export async function lineShown(area: Locator, line: number): Promise<boolean> {
  const v = await visibleLines(area);
  return line >= v.first && line <= v.last;
}

/** The 1-based line of the first occurrence of `needle` in `text`. */
export function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`not in the text: ${needle}`);
  return text.slice(0, at).split('\n').length;
}

/**
 * The centre of the last occurrence of `token` in the first drawn line containing `lineText`, in
 * page coordinates (scrolled sideways into view), measured on the text itself: highlighted tokens are painted over the line's
 * text, not wrapped in elements of their own, so a pointer aims at them by position.
 */
export async function tokenCentre(page: Page, lineText: string, token: string): Promise<{ x: number; y: number }> {
  const line = page.locator('.cm-line', { hasText: lineText }).first();
  await line.waitFor();
  return line.evaluate((el, t) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const nodes: Text[] = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n as Text);
    const text = nodes.map((n) => n.data).join('');
    let at = text.lastIndexOf(t);
    if (at < 0) throw new Error(`${t} is not on the line`);
    const range = document.createRange();
    for (const n of nodes) {
      if (at < n.length) {
        range.setStart(n, at);
        range.setEnd(n, Math.min(n.length, at + t.length));
        break;
      }
      at -= n.length;
    }
    // Long HLO lines scroll sideways: bring the token to the middle of the editor first.
    const scroller = el.closest('.cm-scroller');
    let r = range.getBoundingClientRect();
    if (scroller) {
      const box = scroller.getBoundingClientRect();
      if (r.left < box.left + box.width / 4 || r.right > box.right - 20) scroller.scrollLeft += r.left - (box.left + box.width / 2);
      r = range.getBoundingClientRect();
    }
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  }, token);
}
