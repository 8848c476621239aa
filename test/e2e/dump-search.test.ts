import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Person } from '../helpers/browser';
import { lineVisible, openDumpRoom, taggedDump, type DumpRoom } from '../helpers/dump-room';

const LINES = 8000;
/** A dump far taller than what the editor draws; every line carries a tag such as `L05000`. */
const DUMP = taggedDump(LINES);

let r: DumpRoom;
let ada: Person;
const errors: string[] = [];

/** The text of the open dump's main selection. */
function selected(page: Page): Promise<string> {
  return page.evaluate(() => document.getSelection()?.toString() ?? '');
}

beforeAll(async () => {
  r = await openDumpRoom({ roomTitle: 'Search', dumpTitle: 'big.hlo', dump: DUMP, lineText: 'L00001' }, errors);
  ada = r.ada;
});

afterAll(async () => {
  await r?.close();
});

describe('finding in a dump', () => {
  it('finds text far below the drawn lines with Ctrl+F, steps through the matches, and offers no replace on a dump', async () => {
    expect(await lineVisible(ada.page, 'L07777')).toBe(false);
    await ada.page.locator('.cm-line', { hasText: 'L00001' }).click();
    await ada.page.keyboard.press('Control+f');
    const find = ada.page.getByRole('textbox', { name: 'Find' });
    await expect.poll(() => find.evaluate((e) => e === document.activeElement)).toBe(true);
    expect(await ada.page.getByRole('textbox', { name: 'Replace' }).count()).toBe(0);

    // Typed as a person types: the panel takes the query on each key.
    await find.pressSequentially('L07777');
    await find.press('Enter');
    await expect.poll(() => lineVisible(ada.page, 'L07777')).toBe(true);
    await expect.poll(() => ada.page.locator('.cm-searchMatch-selected').textContent()).toBe('L07777');

    // Ten lines match `L0500`: Enter steps to the next, Shift+Enter back.
    await find.fill('');
    await find.pressSequentially('L0500');
    await find.press('Enter');
    await expect.poll(() => ada.page.locator('.cm-searchMatch-selected').evaluate((e) => e.closest('.cm-line')?.textContent ?? '')).toContain('L05000');
    await find.press('Enter');
    await expect.poll(() => ada.page.locator('.cm-searchMatch-selected').evaluate((e) => e.closest('.cm-line')?.textContent ?? '')).toContain('L05001');
    await find.press('Shift+Enter');
    await expect.poll(() => ada.page.locator('.cm-searchMatch-selected').evaluate((e) => e.closest('.cm-line')?.textContent ?? '')).toContain('L05000');

    await find.press('Escape');
    await expect.poll(() => ada.page.locator('.cm-search').count()).toBe(0);
    // The match stays selected in the dump, ready to annotate.
    await expect.poll(() => selected(ada.page)).toBe('L0500');
    expect(errors).toEqual([]);
  });

  it('opens the dump\'s find with Ctrl+F pressed anywhere in the room, not the browser\'s', async () => {
    await ada.page.getByRole('tab', { name: 'Spills' }).click();
    await ada.page.getByRole('tab', { name: 'Annotations' }).click();
    expect(await ada.page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('tab');
    await ada.page.keyboard.press('Control+f');
    const find = ada.page.getByRole('textbox', { name: 'Find' });
    await expect.poll(() => find.evaluate((e) => e === document.activeElement)).toBe(true);
    await find.pressSequentially('L06543');
    await find.press('Enter');
    await expect.poll(() => lineVisible(ada.page, 'L06543')).toBe(true);
    await find.press('Escape');
    expect(errors).toEqual([]);
  });

  it('stops following the presenter when a follower finds a match or goes to a line, not when they only open and close the panel', async () => {
    const bo = r.bo;
    await ada.page.getByRole('button', { name: 'Present', exact: true }).click();
    // Opening the find panel and closing it with Esc moves nothing: the follower still follows.
    await bo.page.getByText('Following Ada').waitFor();
    await bo.page.locator('.cm-content').focus();
    await bo.page.keyboard.press('Control+f');
    await bo.page.getByRole('textbox', { name: 'Find' }).waitFor();
    await bo.page.keyboard.press('Escape');
    await expect.poll(() => bo.page.locator('.cm-search').count()).toBe(0);
    expect(await bo.page.getByText('Following Ada').count()).toBe(1);
    for (const move of ['find', 'goto'] as const) {
      await bo.page.getByText('Following Ada').waitFor();
      await bo.page.locator('.cm-content').focus();
      if (move === 'find') {
        await bo.page.keyboard.press('Control+f');
        await bo.page.getByRole('textbox', { name: 'Find' }).pressSequentially('L03333');
        await bo.page.keyboard.press('Enter');
        await expect.poll(() => lineVisible(bo.page, 'L03333')).toBe(true);
        // Stopped by the match itself: Esc (which also stops following) comes only after.
        await bo.page.getByRole('button', { name: 'Follow', exact: true }).waitFor();
        await bo.page.keyboard.press('Escape');
      } else {
        await bo.page.keyboard.press('Control+Alt+g');
        await bo.page.getByLabel('Go to line').fill('4444');
        await bo.page.keyboard.press('Enter');
        await expect.poll(() => lineVisible(bo.page, 'L04444')).toBe(true);
      }
      await bo.page.getByRole('button', { name: 'Follow', exact: true }).click();
    }
    await ada.page.getByRole('button', { name: 'Stop presenting' }).click();
    expect(errors).toEqual([]);
  });

  it('goes to a line with Ctrl+Alt+G', async () => {
    await ada.page.locator('.cm-content').focus();
    await ada.page.keyboard.press('Control+Alt+g');
    const go = ada.page.getByLabel('Go to line');
    await go.fill('6000');
    await go.press('Enter');
    await expect.poll(() => lineVisible(ada.page, 'L06000')).toBe(true);
    expect(errors).toEqual([]);
  });
});
