import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from '../helpers/browser';
import { annotateLine, openDumpRoom, saveStatus, type DumpRoom } from '../helpers/dump-room';
import { listAnnotations } from '../helpers/server';

const DUMP = ['HloModule offline_case', '', 'ENTRY %main (p: f32[1024]) -> f32[1024] {', '  %p = f32[1024]{0} parameter(0)', '  ROOT %neg = f32[1024]{0} negate(%p)', '}'].join('\n');

let r: DumpRoom;
let ada: Person;
let bo: Person;
const errors: string[] = [];

beforeAll(async () => {
  r = await openDumpRoom({ roomTitle: 'Offline', dumpTitle: 'neg.hlo', dump: DUMP, lineText: 'negate' }, errors);
  ({ ada, bo } = r);
});

afterAll(async () => {
  await r?.close();
});

describe('offline', () => {
  it('keeps annotations made offline, says so honestly, and syncs them when the connection returns', async () => {
    await expect.poll(() => saveStatus(bo.page).textContent()).toContain('saved');
    await bo.context.setOffline(true);
    await expect.poll(() => saveStatus(bo.page).textContent()).toContain('offline');

    await annotateLine(bo.page, 'negate', 'Question', 'why is this not fused?');
    await bo.page.getByRole('region', { name: 'Annotations' }).getByText('why is this not fused?').waitFor();
    await expect.poll(() => saveStatus(bo.page).textContent()).toContain('offline — 1 change waiting');
    expect(await ada.page.getByRole('region', { name: 'Annotations' }).getByText('why is this not fused?').count()).toBe(0);

    await bo.context.setOffline(false);
    await ada.page.getByRole('region', { name: 'Annotations' }).getByText('why is this not fused?').waitFor();
    await expect.poll(() => saveStatus(bo.page).textContent()).toContain('saved');
    const annotations = await listAnnotations(r.server, r.room.id, r.room.tokens.viewer);
    expect(annotations.map((a) => [a.kind, a.body])).toEqual([['question', 'why is this not fused?']]);
    expect(errors).toEqual([]);
  });
});
