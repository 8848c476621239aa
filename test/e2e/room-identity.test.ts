import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from '../helpers/browser';
import { annotateLine, openDumpRoom, type DumpRoom } from '../helpers/dump-room';
import { listAnnotations, type CreatedRoom, type TestServer } from '../helpers/server';
import { fixture } from '../helpers/ir-fixture';

const DUMP = fixture('attention', 'hlo-opt.txt');
const LINE = '%convert.50 = bf16[8192,8192]{1,0} convert(%param_1.3)';

let server: TestServer;
let lab: DumpRoom;
let room: CreatedRoom;
let ada: Person;
let bo: Person;
const errors: string[] = [];

/** `#rrggbb` as the browser serializes an inline colour: `rgb(r, g, b)`. */
function rgb(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgb(${n >> 16}, ${(n >> 8) & 255}, ${n & 255})`;
}

beforeAll(async () => {
  lab = await openDumpRoom({ roomTitle: 'Identity lab', dumpTitle: 'attention.hlo', dump: DUMP, lineText: 'HloModule jit_attention' }, errors);
  ({ server, room, ada, bo } = lab);
});

afterAll(async () => {
  await lab?.close();
});

describe('changing name and colour after the first visit', () => {
  it('shows the new name and colour to others at once, signs new replies with it and keeps the old author on old annotations', async () => {
    await annotateLine(bo.page, LINE, 'Note', 'written before the rename');
    await ada.page.getByRole('region', { name: 'Annotations' }).getByText('written before the rename').waitFor();

    await bo.page.getByRole('button', { name: 'Your name' }).click();
    const dialog = bo.page.getByRole('dialog', { name: 'Change name and colour' });
    const radios = dialog.getByRole('radio');
    const colours = await radios.evaluateAll((els) => els.map((e) => ({ value: (e as HTMLInputElement).value, checked: (e as HTMLInputElement).checked })));
    const before = colours.find((c) => c.checked)?.value;
    const next = colours.find((c) => !c.checked)?.value;
    expect(before, 'the dialog starts from the current colour').toBeTruthy();
    expect(next).toBeTruthy();
    // Each swatch shows its colour: the first opaque background from the radio outwards is it.
    const painted = await radios.evaluateAll((els) => els.map((e) => {
      for (let el: Element | null = e; el; el = el.parentElement) {
        const bg = getComputedStyle(el).backgroundColor;
        if (bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') return bg;
      }
      return '';
    }));
    expect(painted).toEqual(colours.map((c) => rgb(c.value)));
    await dialog.getByRole('textbox', { name: 'Display name' }).fill('Bea');
    await dialog.getByRole('radio', { name: `Colour ${next!}` }).check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => bo.page.getByRole('button', { name: 'Your name' }).textContent()).toContain('Bea · annotator');

    const list = ada.page.getByRole('list', { name: 'Participants' });
    await expect.poll(async () => (await list.textContent()) ?? '').toMatch(/Bea.*annotator/);
    expect(await list.textContent()).not.toMatch(/\bBo\b/);
    const row = list.getByRole('listitem').filter({ hasText: 'Bea' });
    expect(await row.locator('.dot').getAttribute('style')).toContain(rgb(next!));

    await ada.page.getByRole('region', { name: 'Annotations' }).getByText('written before the rename').waitFor();
    await bo.page.getByRole('region', { name: 'Annotations' }).getByRole('button', { name: 'Reply', exact: true }).click();
    await bo.page.getByRole('textbox', { name: 'Reply text' }).fill('written after the rename');
    await bo.page.keyboard.press('Enter');
    await ada.page.getByRole('region', { name: 'Annotations' }).getByText('written after the rename').waitFor();

    const [a] = await listAnnotations(server, room.id, room.tokens.viewer);
    expect(a?.author).toMatchObject({ name: 'Bo', color: before });
    expect(a?.replies.map((r) => [r.author.name, r.author.color, r.body])).toEqual([['Bea', next, 'written after the rename']]);
    expect(a?.replies[0]?.author.id, 'the same person, renamed').toBe(a?.author.id);

    await bo.page.reload();
    await expect.poll(() => bo.page.getByRole('button', { name: 'Your name' }).textContent()).toContain('Bea');
    expect(errors).toEqual([]);
  });

  it('renames a presenter in the followers\' banner as well', async () => {
    await ada.page.getByRole('button', { name: 'Present', exact: true }).click();
    const banner = bo.page.locator('.follow-banner');
    await expect.poll(async () => (await banner.textContent()) ?? '').toContain('Following Ada');
    await ada.page.getByRole('button', { name: 'Your name' }).click();
    const dialog = ada.page.getByRole('dialog', { name: 'Change name and colour' });
    await dialog.getByRole('textbox', { name: 'Display name' }).fill('Ada L.');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await banner.textContent()) ?? '').toContain('Following Ada L.');
    await ada.page.getByRole('button', { name: 'Stop presenting' }).click();
    expect(errors).toEqual([]);
  });
});
