import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Person } from '../helpers/browser';
import { lineVisible, openDumpRoom, pasteDump, selectLine, taggedDump, type DumpRoom } from '../helpers/dump-room';
import { connectClient } from '../helpers/sync-client';

const LINES = 8000;
/** A large synthetic HLO-like dump; every line carries a unique zero-padded tag such as `L05000`. */
const DUMP = taggedDump(LINES);

let r: DumpRoom;
let ada: Person;
let bo: Person;
const errors: string[] = [];

/** Scrolls the presenter's editor so that 1-based `line` is at the top (as a scrollbar drag would). */
async function scrollToLine(page: Page, line: number): Promise<void> {
  await page.evaluate((n) => {
    const scroller = document.querySelector('.cm-scroller') as HTMLElement;
    const h = (document.querySelector('.cm-line') as HTMLElement).getBoundingClientRect().height;
    scroller.scrollTop = (n - 1) * h;
  }, line);
}

beforeAll(async () => {
  r = await openDumpRoom({ roomTitle: 'Live session', dumpTitle: 'big.hlo', dump: DUMP, lineText: 'L00001' }, errors);
  ({ ada, bo } = r);
});

afterAll(async () => {
  await r?.close();
});

describe('live session', () => {
  it('sends no presence update while a person only scrolls, and one when their selection changes', async () => {
    const watcher = connectClient(r.server, r.room.id, r.room.tokens.viewer);
    try {
      await watcher.synced();
      type Seen = { user?: { name?: string }; dumpSel?: unknown };
      const states = watcher.provider.awareness.getStates() as Map<number, Seen>;
      // Bo's presence once it holds the selection Bo's open dump reported: nothing more is due until Bo acts.
      const boState = () => [...states].find(([, s]) => s.user?.name === 'Bo' && s.dumpSel);
      await expect.poll(() => boState() !== undefined).toBe(true);
      const boId = boState()?.[0];
      let fromBo = 0;
      watcher.provider.awareness.on('update', (ch: { added: number[]; updated: number[] }) => {
        if (boId !== undefined && [...ch.added, ...ch.updated].includes(boId)) fromBo++;
      });
      await bo.page.locator('.cm-content').hover();
      for (let i = 0; i < 10; i++) {
        await bo.page.mouse.wheel(0, 400);
        await bo.page.waitForTimeout(60);
      }
      // What Bo's view reported while scrolling (top line, the same selection) has had time to go out.
      await bo.page.waitForTimeout(300);
      expect(fromBo).toBe(0);
      await bo.page.mouse.wheel(0, -4000);
      await selectLine(bo.page, 'L00002');
      await expect.poll(() => fromBo).toBeGreaterThan(0);
    } finally {
      watcher.destroy();
    }
  });

  it('makes followers follow the presenter to line 5,000, lets them leave and rejoin', async () => {
    await ada.page.getByRole('button', { name: 'Present', exact: true }).click();
    await ada.page.getByRole('button', { name: 'Stop presenting' }).waitFor();
    await bo.page.getByText('Following Ada').waitFor();
    await bo.page.getByRole('button', { name: 'Stop following' }).waitFor();

    await scrollToLine(ada.page, 5000);
    await expect.poll(() => lineVisible(ada.page, 'L05000')).toBe(true);
    await expect.poll(() => lineVisible(bo.page, 'L05000')).toBe(true);

    await bo.page.locator('.cm-content').hover();
    await bo.page.mouse.wheel(0, -60_000);
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).waitFor();
    await bo.page.getByText('Ada is presenting').waitFor();
    await expect.poll(() => lineVisible(bo.page, 'L05000')).toBe(false);

    await bo.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await bo.page.getByText('Following Ada').waitFor();
    await expect.poll(() => lineVisible(bo.page, 'L05000')).toBe(true);

    await bo.page.keyboard.press('Escape');
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).waitFor();
  });

  it('leaves a follower who scrolls away where they went while the others keep moving and the presenter stays put', async () => {
    const cy = connectClient(r.server, r.room.id, r.room.tokens.annotator);
    let n = 0;
    const churn = setInterval(() => {
      n += 1;
      cy.provider.awareness.setLocalState({ user: { id: 'cy', name: 'Cy', color: '#0c8599', colorLight: '#0c859933' }, role: 'annotator', docId: null, dumpSel: null, view: null, spotlight: null, n });
    }, 15);
    try {
      await cy.synced();
      for (let i = 0; i < 5; i++) {
        await bo.page.getByRole('button', { name: 'Follow', exact: true }).click();
        await bo.page.getByText('Following Ada').waitFor();
        await expect.poll(() => lineVisible(bo.page, 'L05000')).toBe(true);
        await bo.page.locator('.cm-content').hover();
        await bo.page.mouse.wheel(0, -60_000);
        await bo.page.getByRole('button', { name: 'Follow', exact: true }).waitFor();
        await expect.poll(() => lineVisible(bo.page, 'L05000')).toBe(false);
        // Frames later, with the others' presence read many times since, Bo is still where Bo went.
        await bo.page.waitForTimeout(300);
        expect(await lineVisible(bo.page, 'L05000'), `round ${i + 1}`).toBe(false);
      }
    } finally {
      clearInterval(churn);
      cy.destroy();
    }
  });

  it('moves followers along while the presenter drags through the dump, before the drag settles', async () => {
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await bo.page.getByText('Following Ada').waitFor();
    await expect.poll(() => lineVisible(bo.page, 'L05000')).toBe(true);
    // Bo's page notes when its top line first goes above line 4,900 (by the clock both pages share).
    await bo.page.evaluate(() => {
      const s = document.querySelector('.cm-scroller') as HTMLElement;
      const h = (document.querySelector('.cm-line') as HTMLElement).getBoundingClientRect().height;
      const w = window as { __movedAt?: number };
      const watch = () => {
        if (s.scrollTop / h + 1 < 4900) w.__movedAt = Date.now();
        else requestAnimationFrame(watch);
      };
      watch();
    });
    // Ada drags up fast for a second and a half: the fast-scroll layer draws it until it settles.
    const drag = await ada.page.evaluate(async () => {
      const s = document.querySelector('.cm-scroller') as HTMLElement;
      const layer = s.querySelector('.cm-fast-layer') as HTMLElement;
      let layerSeen = false;
      for (let i = 0; i < 90; i++) {
        await new Promise((r) => requestAnimationFrame(r));
        s.scrollTop -= 400;
        layerSeen ||= getComputedStyle(layer).display !== 'none';
      }
      return { endedAt: Date.now(), layerSeen };
    });
    expect(drag.layerSeen).toBe(true);
    const movedAt = await bo.page.evaluate(() => (window as { __movedAt?: number }).__movedAt ?? Infinity);
    expect(movedAt).toBeLessThan(drag.endedAt);

    // Back to line 5,000 with Bo, who then stops following, as the tests below expect.
    await scrollToLine(ada.page, 5000);
    await expect.poll(() => lineVisible(bo.page, 'L05000')).toBe(true);
    await bo.page.getByRole('button', { name: 'Stop following' }).click();
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).waitFor();
  });

  it('stops following on a wheel over the fast-scroll layer while the presenter drags', async () => {
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await bo.page.getByText('Following Ada').waitFor();
    await expect.poll(() => lineVisible(bo.page, 'L05000')).toBe(true);
    // Bo's view moves as a presenter's drag moves it: a scroll step every frame, drawn by the
    // fast-scroll layer, which hides the lines under it. The steps go on until Bo's wheel arrives,
    // so that the wheel lands while the layer shows however busy the machine is.
    const moving = bo.page.evaluate(() => new Promise<boolean>((resolve) => {
      const s = document.querySelector('.cm-scroller') as HTMLElement;
      const layer = s.querySelector('.cm-fast-layer') as HTMLElement;
      let wheeled = false;
      window.addEventListener('wheel', () => {
        wheeled = true;
        resolve(layer.classList.contains('cm-fast-on'));
      }, { capture: true, once: true });
      const step = () => {
        if (wheeled) return;
        s.scrollTop -= 300;
        requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    }));
    const layerOn = () => bo.page.evaluate(() => document.querySelector('.cm-fast-layer')?.classList.contains('cm-fast-on') === true);
    await expect.poll(layerOn, { interval: 10 }).toBe(true);
    const box = await bo.page.locator('.cm-scroller').boundingBox();
    if (!box) throw new Error('no scroller');
    await bo.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    // Still following: the view's own steps do not end it, only the person's wheel does.
    expect(await bo.page.getByRole('button', { name: 'Stop following' }).count()).toBe(1);
    await bo.page.mouse.wheel(0, -400);
    expect(await moving).toBe(true);
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).waitFor();
    await scrollToLine(ada.page, 5000);
    await expect.poll(() => lineVisible(ada.page, 'L05000')).toBe(true);
  });

  it('lets the presenter spotlight a range for the room', async () => {
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await selectLine(ada.page, 'L05002');
    await ada.page.getByRole('button', { name: 'Spotlight' }).click();
    await expect.poll(() => bo.page.locator('.cm-spotlight').textContent()).toContain('L05002');
  });

  it('lets the owner lock the room so that annotators cannot write, and unlock it', async () => {
    await ada.page.getByRole('button', { name: 'Lock room' }).click();
    await bo.page.getByText('The room is locked').waitFor();
    await bo.page.getByRole('button', { name: 'Stop following' }).click();
    await selectLine(bo.page, 'L05003');
    await bo.page.locator('.cm-selectionBackground').first().waitFor();
    expect(await bo.page.getByRole('toolbar', { name: 'Annotate' }).count()).toBe(0);

    await ada.page.getByRole('button', { name: 'Unlock room' }).click();
    await bo.page.getByText('The room is locked').waitFor({ state: 'detached' });
    await bo.page.keyboard.press('Shift+ArrowLeft');
    await bo.page.getByRole('toolbar', { name: 'Annotate' }).waitFor();
  });

  it('lets a follower add a dump and read it: adding one stops following', async () => {
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await bo.page.getByText('Following Ada').waitFor();
    await pasteDump(bo.page, 'HloModule brought_by_bo\n', 'bo.hlo');
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).waitFor();
    await scrollToLine(ada.page, 3000);
    await expect.poll(() => lineVisible(ada.page, 'L03000')).toBe(true);
    await bo.page.locator('.cm-line', { hasText: 'HloModule brought_by_bo' }).waitFor();
    await expect.poll(() => ada.page.getByRole('list', { name: 'Participants' }).textContent()).toContain('bo.hlo');
  });

  it('ends the session when the presenter stops', async () => {
    await ada.page.getByRole('button', { name: 'Stop presenting' }).click();
    await ada.page.getByRole('button', { name: 'Present', exact: true }).waitFor();
    await bo.page.getByText('Ada is presenting').waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  });
});
