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

describe('presence across a reconnect', () => {
  const participants = (p: Person) => p.page.getByRole('list', { name: 'Participants' });

  it('shows both people to each other again at once when one comes back, not at the next renewal of their states', async () => {
    // Bo's page keeps its sockets, so that the test can drop the room's connection the way a
    // restarted server or a failed-over instance does: closed, then reconnected by the provider.
    await bo.context.addInitScript(() => {
      const Native = window.WebSocket;
      const sockets: WebSocket[] = ((window as unknown as { seamSockets: WebSocket[] }).seamSockets = []);
      window.WebSocket = class extends Native {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(url, protocols);
          sockets.push(this);
        }
      };
    });
    await bo.page.reload();
    await bo.page.locator('.cm-line', { hasText: 'parameter' }).first().waitFor();
    await expect.poll(() => participants(ada).textContent()).toContain('Bo');
    await expect.poll(() => participants(bo).textContent()).toContain('Ada');
    // Each moves its caret, so neither renews its state for the next 15 s (y-protocols renews a
    // standing state only when it is that old): what shows them again below is the reconnect.
    for (const p of [ada, bo]) await p.page.locator('.cm-line', { hasText: 'parameter' }).first().click();
    await bo.page.evaluate(() => {
      for (const ws of (window as unknown as { seamSockets: WebSocket[] }).seamSockets) if (ws.url.includes('/sync')) ws.close();
    });
    await expect.poll(() => saveStatus(bo.page).textContent()).toContain('saved');
    await expect.poll(() => participants(ada).textContent(), { timeout: 5_000 }).toContain('Bo');
    await expect.poll(() => participants(bo).textContent(), { timeout: 5_000 }).toContain('Ada');
    expect(errors).toEqual([]);
  });
});
