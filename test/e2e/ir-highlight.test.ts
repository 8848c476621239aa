import { beforeAll, describe, expect, it } from 'vitest';
import { openAs, type Person } from '../helpers/browser';
import { useWebRig } from '../helpers/web-rig';
import { addDocument, createRoom } from '../helpers/server';
import { fixture } from '../helpers/ir-fixture';
import { openDocument } from './ir-kit';

const HLO = fixture('attention', 'hlo-opt.txt');
/** The optimized attention HLO repeated until it is far taller than the viewport. */
const LONG = Array.from({ length: 40 }, () => HLO).join('\n');

const rig = useWebRig();
let ada: Person;
const errors: string[] = [];

beforeAll(async () => {
  const room = await createRoom(rig.server, 'Highlighting');
  await addDocument(rig.server, room.id, room.tokens.owner, 'attention.hlo-opt', LONG);
  ada = await openAs(rig.browser, room.links.owner, 'Ada', errors);
});

/** In the page: the text of every painted token in the drawn lines, by highlight group. */
const PAINTED = `(() => {
  const out = {};
  const content = document.querySelector('.cm-content');
  for (const [name, h] of CSS.highlights) {
    for (const r of h) {
      if (!content.contains(r.startContainer)) continue;
      const range = document.createRange();
      range.setStart(r.startContainer, r.startOffset);
      range.setEnd(r.endContainer, r.endOffset);
      (out[name] ??= []).push(range.toString());
    }
  }
  return out;
})()`;

describe('IR highlighting', () => {
  it('paints the tokens of the drawn lines as CSS highlights, keeps definitions bold, and follows a scroll (a fast one once it settles)', async () => {
    await openDocument(ada.page, 'attention.hlo-opt', 'HloModule jit_attention');
    await expect.poll(async () => Object.keys((await ada.page.evaluate(PAINTED)) as Record<string, string[]>).length).toBeGreaterThan(3);
    const top = (await ada.page.evaluate(PAINTED)) as Record<string, string[]>;
    expect(top['ir-keyword']).toContain('HloModule');
    expect(top['ir-type']?.some((t) => /^f32\[/.test(t))).toBe(true);
    const def = ada.page.locator('.cm-line .cm-ir-t-definition').first();
    expect(await def.evaluate((e) => getComputedStyle(e).fontWeight)).toBe('600');
    // A painted colour is the theme's, not the text colour.
    const colour = await ada.page.evaluate(`getComputedStyle(document.querySelector('.cm-line'), '::highlight(ir-keyword)').color`);
    expect(colour).not.toBe(await ada.page.evaluate(`getComputedStyle(document.querySelector('.cm-line')).color`));

    await ada.page.locator('.cm-scroller').evaluate((s) => { s.scrollTop = s.scrollHeight / 2; });
    const lastLine = ada.page.locator('.cm-line').last();
    await expect.poll(async () => {
      const painted = (await ada.page.evaluate(PAINTED)) as Record<string, string[]>;
      const drawn = (await lastLine.textContent()) ?? '';
      return Object.values(painted).flat().every((t) => t.length > 0) && (painted['ir-type'] ?? []).some((t) => drawn.includes(t));
    }).toBe(true);
    // A fast scroll (a jump every frame) may leave new lines plain while it lasts; they are painted once it settles.
    await ada.page.locator('.cm-scroller').evaluate(async (s) => {
      for (let i = 0; i < 12; i++) {
        s.scrollTop -= 1_500;
        await new Promise(requestAnimationFrame);
      }
    });
    await expect.poll(async () => {
      const painted = (await ada.page.evaluate(PAINTED)) as Record<string, string[]>;
      const drawn = (await lastLine.textContent()) ?? '';
      return (painted['ir-type'] ?? []).some((t) => drawn.includes(t));
    }).toBe(true);
    const all = Object.values((await ada.page.evaluate(PAINTED)) as Record<string, string[]>).flat();
    // Only the drawn lines are painted: a few hundred lines, not the whole dump.
    expect(all.length).toBeLessThan(LONG.split('\n').length);
    expect(errors).toEqual([]);
  });

  it('paints a dump that is drawn once and never redrawn (the first document a newcomer opens)', async () => {
    const room = await createRoom(rig.server, 'Painted at once');
    await addDocument(rig.server, room.id, room.tokens.owner, 'attention.jaxpr', fixture('attention', 'jaxpr.txt'));
    await addDocument(rig.server, room.id, room.tokens.owner, 'attention.hlo-opt', HLO);
    const cy = await openAs(rig.browser, room.links.viewer, 'Cy', errors);
    await cy.page.locator('.cm-line', { hasText: 'lambda' }).first().waitFor();
    await expect.poll(async () => ((await cy.page.evaluate(PAINTED)) as Record<string, string[]>)['ir-type'] ?? []).toContain('bf16[8192,128]');
    await cy.context.close();
    expect(errors).toEqual([]);
  });
});
