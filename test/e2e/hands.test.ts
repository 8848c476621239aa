import * as encoding from 'lib0/encoding';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { RoomKey } from '@seam/shared/model';
import { CloseCode, MessageType, writeAwarenessEntries } from '@seam/shared/protocol';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { addDocument, createRoom, type CreatedRoom, type TestServer } from '../helpers/server';
import { annotateLine, selectLine } from '../helpers/dump-room';
import { connectClient, rawSocket, waitFor } from '../helpers/sync-client';
import { fixture } from '../helpers/ir-fixture';
import { lineOf } from './ir-kit';
import { handButton, handQueue as queue, queued } from './teaching-kit';

const HLO = fixture('attention', 'hlo-opt.txt');
const BO_TEXT = 'ROOT %convert.57 = f32[8192,128]';
const BO_LINE = lineOf(HLO, BO_TEXT);

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let ada: Person;
let students: Person[];
const errors: string[] = [];


beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, 'Office hours');
  await addDocument(server, room.id, room.tokens.owner, 'attn.hlo-opt', HLO);
  ada = await openAs(browser, room.links.owner, 'Ada', errors, { viewport: { width: 1440, height: 900 } });
  students = await Promise.all([
    openAs(browser, room.links.annotator, 'Bo', errors, { viewport: { width: 1440, height: 900 } }),
    openAs(browser, room.links.annotator, 'Cy', errors, { viewport: { width: 1440, height: 900 } }),
    openAs(browser, room.links.viewer, 'Di', errors, { viewport: { width: 1440, height: 900 } }),
  ]);
  for (const p of [ada, ...students]) await p.page.locator('.cm-line', { hasText: 'HloModule' }).first().waitFor();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('hands raised and the class at a glance', () => {
  it('a student raises a hand, the instructor sees the queue oldest first with where each one is, lowers it, and the student sees it lowered', async () => {
    const [bo, cy, di] = students as [Person, Person, Person];
    // Cy raises a hand from the keyboard first, then Bo with the button, from a line of the dump; Di (a viewer) too.
    await cy.page.locator('.cm-content').click();
    await cy.page.keyboard.press('Alt+h');
    await expect.poll(() => handButton(cy.page).getAttribute('aria-pressed')).toBe('true');
    await bo.page.locator('.cm-scroller').evaluate((el, n) => (el.scrollTop = (n - 5) * 17), BO_LINE);
    await selectLine(bo.page, BO_TEXT);
    await handButton(bo.page).click();
    await expect.poll(() => handButton(bo.page).textContent()).toContain('Lower hand');
    await handButton(di.page).click();

    await ada.page.getByRole('tab', { name: 'Class · 3 hands' }).click();
    await expect.poll(() => queued(ada.page)).toEqual(['Cy', 'Bo', 'Di']);
    const boEntry = queue(ada.page).locator('li', { hasText: 'Bo' });
    await expect.poll(() => boEntry.locator('.where').textContent()).toBe(`attn.hlo-opt · line ${BO_LINE}`);
    await ada.page.screenshot({ path: '/tmp/hands-queue.png' });

    await ada.page.getByRole('button', { name: "Lower Bo's hand" }).click();
    await expect.poll(() => queued(ada.page)).toEqual(['Cy', 'Di']);
    await bo.page.getByRole('status').filter({ hasText: 'Your hand was lowered' }).waitFor();
    await expect.poll(() => handButton(bo.page).getAttribute('aria-pressed')).toBe('false');
    await ada.page.getByRole('tab', { name: 'Class · 2 hands' }).waitFor();
    // Cy lowers her own hand: it leaves the queue, and nobody else's hand moved.
    await handButton(cy.page).click();
    await expect.poll(() => queued(ada.page)).toEqual(['Di']);
    expect(await handButton(di.page).getAttribute('aria-pressed')).toBe('true');
    // Bo raises a new hand: it is up again, at the end of the queue.
    await bo.page.keyboard.press('Alt+h');
    await expect.poll(() => queued(ada.page)).toEqual(['Di', 'Bo']);
    expect(await bo.page.getByText('Your hand was lowered').count()).toBe(0);
  });

  it('keeps no lowered mark once the hand is down: the owner-only map empties again', async () => {
    const watcher = connectClient(server, room.id, room.tokens.viewer);
    try {
      await watcher.synced();
      const hands = watcher.doc.getMap(RoomKey.hands);
      await ada.page.getByRole('button', { name: "Lower Di's hand" }).click();
      await expect.poll(() => queued(ada.page)).toEqual(['Bo']);
      await expect.poll(() => handButton((students[2] as Person).page).getAttribute('aria-pressed')).toBe('false');
      // The mark did its work (Di's client took the hand down) and the owner's client removed it.
      await waitFor(() => hands.size === 0, 'the lowered marks to be cleared');
    } finally {
      watcher.destroy();
    }
  });

  it('shows the owner who follows, who is where, and the open questions in one panel', async () => {
    const [bo, cy] = students as [Person, Person, Person];
    await annotateLine(cy.page, 'HloModule jit_attention', 'Question', 'why is the <b>score</b> matrix f32?');
    await ada.page.getByRole('button', { name: 'Present', exact: true }).click();
    await bo.page.getByText('Following Ada').waitFor();
    await bo.page.keyboard.press('Escape');
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).waitFor();
    const people = ada.page.getByRole('region', { name: 'Who is where' });
    const row = (name: string) => people.locator('tr', { hasText: name });
    await expect.poll(() => row('Cy').getAttribute('data-following')).toBe('true');
    await expect.poll(() => row('Di').getAttribute('data-following')).toBe('true');
    await expect.poll(() => row('Bo').getAttribute('data-following')).toBe('false');
    await expect.poll(() => row('Bo').getAttribute('data-hand')).toBe('true');
    await expect.poll(() => people.locator('h3').textContent()).toContain('2 following');
    expect(await row('Bo').locator('td').nth(1).textContent()).toBe('attn.hlo-opt');
    const questions = ada.page.getByRole('region', { name: 'Open questions' });
    // User text stays text: the markup in Cy's question is shown, not made bold.
    await questions.getByText('why is the <b>score</b> matrix f32?').waitFor();
    expect(await questions.locator('b').count()).toBe(0);
    await ada.page.screenshot({ path: '/tmp/hands-class.png' });
    await ada.page.getByRole('button', { name: 'Stop presenting' }).click();
    // Students have no class panel.
    expect(await bo.page.getByRole('tab', { name: /^Class/ }).count()).toBe(0);
  });

  it('refuses a student writing the lowered marks, and changes nothing', async () => {
    const student = connectClient(server, room.id, room.tokens.annotator, { ack: true });
    const watcher = connectClient(server, room.id, room.tokens.viewer);
    try {
      await Promise.all([student.synced(), watcher.synced()]);
      student.doc.getMap(RoomKey.hands).set('someone', 1_764_000_000_000);
      await waitFor(() => student.refused.includes('forbidden-key'), 'the refusal of the write');
      // Ada's queue still holds Bo's hand, and nobody else's replica got the mark.
      await expect.poll(() => queued(ada.page)).toEqual(['Bo']);
      expect(watcher.doc.getMap(RoomKey.hands).size).toBe(0);
    } finally {
      student.destroy();
      watcher.destroy();
    }
  });

  it.each([
    ['a hand with a second key', { raisedAt: 1_764_000_000_000, loweredBy: 'Ada' }],
    ['a hand time as a string', { raisedAt: '1764000000000' }],
    ['a negative hand time', { raisedAt: -1 }],
    ['a hand that is a word', 'up'],
  ])('closes a socket whose presence carries %s, and applies none of it', async (_, hand) => {
    const watcher = connectClient(server, room.id, room.tokens.viewer);
    const sock = rawSocket(server, room.id, `token=${room.tokens.annotator}`);
    try {
      await Promise.all([watcher.synced(), sock.opened()]);
      const state = JSON.stringify({ user: { id: 'eve', name: 'Eve', color: '#e03131' }, role: 'annotator', docId: null, hand });
      const e = encoding.createEncoder();
      encoding.writeVarUint(e, MessageType.awareness);
      encoding.writeVarUint8Array(e, writeAwarenessEntries([{ clientID: 424242, clock: 1, state }]));
      sock.ws.send(encoding.toUint8Array(e));
      expect(await sock.closed).toEqual({ code: CloseCode.malformedMessage, reason: 'malformed-message' });
      expect(watcher.provider.awareness.getStates().has(424242)).toBe(false);
      expect(await ada.page.getByRole('list', { name: 'Participants' }).textContent()).not.toContain('Eve');
    } finally {
      sock.ws.close();
      watcher.destroy();
    }
  });

  it('ran without page errors', () => {
    expect(errors).toEqual([]);
  });
});
