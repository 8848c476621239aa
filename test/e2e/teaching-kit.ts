import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { analyze } from '@seam/shared/ir';
import type { DrillEntry, DrillQuestion, HistoryLine, PresenterSample } from '@seam/shared/teaching';
import type { TestServer } from '../helpers/server';

/** The course's drill program at 16×32 (x @ wq, x @ wk, x @ wv, q @ kᵀ), as JAX lowers it. */
export const COURSE = readFileSync(new URL('../fixtures/drill/course.stablehlo.mlir', import.meta.url), 'utf8');
const INDEX = analyze(COURSE, 'stablehlo').index;

/** The right answer to a question on {@link COURSE}, read from its IR index. */
export function rightAnswer(q: DrillQuestion): string {
  const dot = INDEX.dots.find((d) => d.name === q.subject);
  if (q.ask === 'einsum' && dot) return dot.einsum;
  if (q.ask === 'contracting' && dot) return `[${dot.lhsContracting.join(',')}] x [${dot.rhsContracting.join(',')}]`;
  if (q.ask === 'batch' && dot) return dot.lhsBatch.length ? `[${dot.lhsBatch.join(',')}] x [${dot.rhsBatch.join(',')}]` : 'none';
  const value = INDEX.values.find((v) => v.name === q.subject);
  if (q.ask === 'bytes' && value) return `${value.bytes / 1024} KiB`;
  throw new Error(`no answer for ${q.ask} ${q.subject}`);
}

/** The room's newest drill, as any member reads it. */
export async function newestDrill(server: Pick<TestServer, 'url'>, roomId: string, token: string): Promise<DrillEntry> {
  const res = await fetch(`${server.url}/api/rooms/${roomId}/drills`, { headers: { authorization: `Bearer ${token}` } });
  const { drills } = (await res.json()) as { drills: DrillEntry[] };
  if (!drills[0]) throw new Error('no drill');
  return drills[0];
}

/** A question of the open drill in the Drill panel. */
export const questionItem = (page: Page, q: Pick<DrillQuestion, 'id'>): Locator => page.locator(`li[data-question="${q.id}"]`);

/** Types `answer` into a question's box and sends it, waiting for the panel to say it was sent. */
export async function answer(page: Page, q: Pick<DrillQuestion, 'id'>, text: string): Promise<void> {
  const li = questionItem(page, q);
  await li.getByRole('textbox').fill(text);
  await li.getByRole('button', { name: /^(Answer|Change)$/ }).click();
  await li.getByText(`Sent: ${text}`).waitFor();
}

/** The texts of the drawn lines the editor's selection covers (drawn by its selection layer, focused or not). */
export function selectedLines(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const boxes = [...document.querySelectorAll('.cm-selectionBackground')].map((el) => el.getBoundingClientRect()).filter((b) => b.width > 0);
    return [...document.querySelectorAll('.cm-line')].filter((line) => {
      const r = line.getBoundingClientRect();
      const mid = (r.top + r.bottom) / 2;
      return boxes.some((b) => b.top <= mid && mid <= b.bottom && b.left < r.right && b.right > r.left);
    }).map((line) => line.textContent ?? '');
  });
}

/** The annotate toolbar's Question button, there whenever the toolbar is. */
export const annotateToolbar = (page: Page): Locator => page.getByRole('button', { name: 'Question', exact: true });

/** The Raise hand / Lower hand toggle. */
export const handButton = (page: Page): Locator => page.getByRole('button', { name: /^(Raise|Lower) hand$/ });
/** The owner's queue of raised hands. */
export const handQueue = (page: Page): Locator => page.getByRole('region', { name: 'Raised hands' });
/** The names in the owner's queue, in its order. */
export const queued = (page: Page): Promise<string[]> => handQueue(page).locator('li .name').allTextContents();

/** Scrolls the open dump so that 1-based `line` is at its top (as far as it goes), as a scrollbar drag would. */
export async function scrollToLine(page: Page, line: number): Promise<void> {
  await page.evaluate((n) => {
    const scroller = document.querySelector('.cm-scroller') as HTMLElement;
    const h = (document.querySelector('.cm-line') as HTMLElement).getBoundingClientRect().height;
    scroller.scrollTop = (n - 1) * h;
  }, line);
}

/** Where the presenter was, as the room's history recorded it, oldest first (`null` views: nobody presenting). */
export async function presenterSamples(server: Pick<TestServer, 'url'>, roomId: string, token: string): Promise<Array<PresenterSample | null>> {
  const res = await fetch(`${server.url}/api/rooms/${roomId}/history`, { headers: { authorization: `Bearer ${token}` } });
  const lines = (await res.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as HistoryLine);
  return lines.flatMap((l) => (l.type === 'presenter' ? [l.view] : []));
}

/** Sets the replay timeline to `t` as dragging its thumb does. */
export const scrub = (page: Page, t: number): Promise<void> =>
  page.getByRole('slider', { name: 'Replay time' }).evaluate((el, v) => {
    const input = el as HTMLInputElement;
    input.value = String(v);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  }, t);
/** The annotation bodies the replay shows, in order. */
export const replayShown = (page: Page): Promise<string[]> => page.locator('dialog[aria-label="Replay"] .annotation .text').allTextContents();

/**
 * Records, inside the page, every distinct list of annotation bodies the replay dialog shows from
 * now on (each change of the dialog's DOM), so that a fast replay is seen whole however slowly
 * the test polls; `seen()` reads the record.
 */
export async function recordReplay(page: Page): Promise<{ seen: () => Promise<string[][]> }> {
  await page.evaluate(() => {
    const dialog = document.querySelector('dialog[aria-label="Replay"]')!;
    const seen: string[][] = [];
    const look = () => {
      const now = [...dialog.querySelectorAll('.annotation .text')].map((el) => el.textContent ?? '');
      if (JSON.stringify(seen.at(-1)) !== JSON.stringify(now)) seen.push(now);
    };
    look();
    new MutationObserver(look).observe(dialog, { subtree: true, childList: true, characterData: true });
    (window as unknown as { __replaySeen: string[][] }).__replaySeen = seen;
  });
  return { seen: () => page.evaluate(() => (window as unknown as { __replaySeen: string[][] }).__replaySeen) };
}

/** Screenshots under `$TMPDIR/seam-<suite>/`, their paths kept to print at the end. */
export function screenshots(suite: string): { shoot: (page: Page, name: string) => Promise<void>; paths: string[] } {
  const dir = join(tmpdir(), `seam-${suite}`);
  mkdirSync(dir, { recursive: true });
  const paths: string[] = [];
  return {
    paths,
    shoot: async (page, name) => {
      const path = join(dir, `${name}.png`);
      await page.screenshot({ path });
      paths.push(path);
    },
  };
}
