import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { diffModules } from '@seam/shared/ir';
import type { DocumentMeta } from '@seam/shared/model';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { createRoom, type CreatedRoom, type TestServer } from '../helpers/server';
import { postImport, roomDocuments } from '../helpers/import-kit';
import { lineOf, lineShown, visibleLines } from './ir-kit';

/** The real JAX captures the module diff is tested on: naive attention, and an online softmax over key blocks. */
const fixture = (name: string): string => readFileSync(new URL(`../fixtures/diff/${name}/hlo-opt.txt`, import.meta.url), 'utf8');
const NAIVE = fixture('attention');
const ONLINE = fixture('attention_online');
const VIEWPORT = { width: 1440, height: 900 };

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let ada: Person;
let bo: Person;
let naive: DocumentMeta;
let online: DocumentMeta;
const errors: string[] = [];

function pane(page: Page, side: 'A' | 'B'): Locator {
  return page.getByRole('region', { name: new RegExp(`^Diff pane ${side}: `) });
}

/** Imports one dump folder holding `text` as `jit_attention`'s optimized HLO: each import is a module group of its own. */
async function importFolder(folder: string, text: string): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([text]), `${folder}/module_0000.jit_attention.cpu_after_optimizations.txt`);
  const r = await postImport(server, room, form, undefined, room.tokens.owner);
  expect(r.status).toBe(201);
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, 'Naive against online softmax');
  await importFolder('naive', NAIVE);
  await importFolder('online', ONLINE);
  const docs = await roomDocuments(server, room);
  [naive, online] = [docs.find((d) => d.module?.path.startsWith('naive/'))!, docs.find((d) => d.module?.path.startsWith('online/'))!];
  ada = await openAs(browser, room.links.owner, 'Ada', errors, { viewport: VIEWPORT });
  bo = await openAs(browser, room.links.viewer, 'Bo', errors, { viewport: VIEWPORT });
  for (const p of [ada, bo]) await p.page.locator('.cm-line').first().waitFor({ timeout: 20_000 });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the diff view', () => {
  it('opens on the earlier version of the module against the later, and lists the S×S spill as gone', async () => {
    await ada.page.getByRole('button', { name: 'Compare' }).click();
    const view = ada.page.getByRole('region', { name: 'Diff view', exact: true });
    expect(await view.getByRole('combobox', { name: 'Diff A' }).inputValue()).toBe(naive.id);
    expect(await view.getByRole('combobox', { name: 'Diff B' }).inputValue()).toBe(online.id);
    const summary = view.getByRole('status', { name: 'Diff summary' });
    await summary.waitFor({ timeout: 30_000 });
    // 12 candidates of 965,099,520 B disappear (the core's own figures for these two files).
    expect(await summary.textContent()).toContain('spills: 12 gone (965,099,520 B (920.4 MiB))');
    expect(await summary.textContent()).toMatch(/traffic: [\d,]+ B \([\d.]+ [GM]iB\) → [\d,]+ B/);
    const changes = view.getByRole('list', { name: 'Changes' });
    const scores = changes.getByRole('button', { name: /spill disappeared\s*dot_general\.2 f32\[8192,8192\]/ });
    await scores.waitFor();
    // Unmatched lines are marked in both panes: the score dot in A, the blocked dot in B.
    const dotA = pane(ada.page, 'A').locator('.cm-line[data-diff="removed"]', { hasText: 'dot_general.2 = f32[8192,8192]' });
    await expect.poll(() => pane(ada.page, 'A').locator('.cm-line[data-diff="removed"]').count()).toBeGreaterThan(0);
    // B's own ops (the blocked dot of the loop body, line 211 of 305) sit below its first screen.
    const dot6 = lineOf(ONLINE, 'dot_general.6 = f32[8192,1024]');
    await pane(ada.page, 'B').locator('.cm-scroller').evaluate((el, at) => (el.scrollTop = at * el.scrollHeight - el.clientHeight / 2), dot6 / ONLINE.split('\n').length);
    await expect.poll(() => pane(ada.page, 'B').locator('.cm-line[data-diff="added"]').count()).toBeGreaterThan(0);
    expect(await pane(ada.page, 'B').locator('.cm-line[data-diff="added"]', { hasText: 'dot_general.6 = f32[8192,1024]' }).count()).toBe(1);
    expect(await dotA.count()).toBe(0); // Line 154 is off-screen until the change is clicked.
  });

  it('a follower sees the same diff at once, and clicking a change scrolls both panes there', async () => {
    await ada.page.getByRole('button', { name: 'Present', exact: true }).click();
    await bo.page.getByRole('button', { name: 'Stop following' }).waitFor();
    const boView = bo.page.getByRole('region', { name: 'Diff view', exact: true });
    await boView.getByRole('status', { name: 'Diff summary' }).waitFor({ timeout: 30_000 });
    expect(await boView.getByRole('combobox', { name: 'Diff A' }).inputValue()).toBe(naive.id);
    expect(await boView.getByRole('combobox', { name: 'Diff B' }).inputValue()).toBe(online.id);
    expect(await boView.getByRole('list', { name: 'Changes' }).getByRole('button', { name: /spill disappeared\s*dot_general\.2 f32\[8192,8192\]/ }).count()).toBe(1);

    const line154 = lineOf(NAIVE, 'dot_general.2 = f32[8192,8192]');
    expect(line154).toBe(154);
    const [a, b] = [pane(ada.page, 'A'), pane(ada.page, 'B')];
    const bBefore = await visibleLines(b);
    expect(await lineShown(a, line154)).toBe(false);
    await ada.page.getByRole('region', { name: 'Diff view', exact: true }).getByRole('list', { name: 'Changes' }).getByRole('button', { name: /spill disappeared\s*dot_general\.2 f32\[8192,8192\]/ }).click();
    await expect.poll(() => lineShown(a, line154), { timeout: 10_000 }).toBe(true);
    // B goes to the entry computation the score dot sat in (it has no counterpart of its own).
    await expect.poll(async () => (await visibleLines(b)).first, { timeout: 10_000 }).not.toBe(bBefore.first);
    expect(await a.locator('.cm-line[data-diff="removed"]', { hasText: 'dot_general.2 = f32[8192,8192]' }).count()).toBe(1);
    // The follower's panes follow the presenter's scroll.
    const boA = pane(bo.page, 'A');
    await expect.poll(() => lineShown(boA, line154), { timeout: 15_000 }).toBe(true);
    await ada.page.screenshot({ path: join(tmpdir(), 'diff-view-presenter.png') });
    await bo.page.screenshot({ path: join(tmpdir(), 'diff-view-follower.png') });
  });

  it('selecting a matched line in one pane brings its counterpart into view in the other, for the follower too', async () => {
    const [a, b] = [pane(ada.page, 'A'), pane(ada.page, 'B')];
    // A pair the core matches far apart: A's first matched op against B's, near B's end.
    const pair = diffModules(NAIVE, ONLINE).pairs.reduce((x, y) => (y.a.line < x.a.line ? y : x));
    expect(pair.b.line - pair.a.line).toBeGreaterThan(100);
    await a.locator('.cm-scroller').evaluate((el) => (el.scrollTop = 0));
    await b.locator('.cm-scroller').evaluate((el) => (el.scrollTop = 0));
    await expect.poll(() => lineShown(b, pair.b.line)).toBe(false);
    const lineA = a.locator('.cm-line').filter({ hasText: new RegExp(`%${pair.a.name.replace(/\./g, '\\.')} = `) });
    await lineA.scrollIntoViewIfNeeded();
    await lineA.click();
    await ada.page.mouse.move(0, 0);
    await expect.poll(() => lineShown(b, pair.b.line), { timeout: 10_000 }).toBe(true);
    const lit = b.locator('.cm-line.cm-ir-linked');
    await expect.poll(() => lit.count(), { timeout: 10_000 }).toBe(1);
    expect(await lit.textContent()).toContain(`%${pair.b.name} = `);
    // The presenter's selected line reaches the follower: the same counterpart is lit there.
    const boLit = pane(bo.page, 'B').locator('.cm-line.cm-ir-linked');
    await expect.poll(() => boLit.count(), { timeout: 15_000 }).toBe(1);
    expect(await boLit.textContent()).toBe(await lit.textContent());
  });

  it('the presenter closing the diff closes the follower\'s, and neither page raised an error', async () => {
    // A pair the view refuses is not sent: the follower keeps the last diff, and the presenter stays connected.
    const adaView = ada.page.getByRole('region', { name: 'Diff view', exact: true });
    await adaView.getByRole('combobox', { name: 'Diff B' }).selectOption(naive.id);
    expect(await adaView.getByRole('alert').textContent()).toBe('Pick two different documents to compare.');
    await adaView.getByRole('combobox', { name: 'Diff B' }).selectOption(online.id);
    await adaView.getByRole('status', { name: 'Diff summary' }).waitFor();
    expect(await bo.page.getByRole('region', { name: 'Diff view', exact: true }).getByRole('combobox', { name: 'Diff B' }).inputValue()).toBe(online.id);
    await ada.page.getByRole('button', { name: 'Stop presenting' }).waitFor();
    await ada.page.getByRole('button', { name: 'Close diff' }).click();
    await expect.poll(() => bo.page.getByRole('region', { name: 'Diff view', exact: true }).count(), { timeout: 15_000 }).toBe(0);
    await ada.page.getByRole('button', { name: 'Stop presenting' }).click();
    expect(errors).toEqual([]);
  });

  it('says what is wrong with a pair that cannot be diffed, and diffs nothing', async () => {
    await ada.page.getByRole('button', { name: 'Compare' }).click();
    const view = ada.page.getByRole('region', { name: 'Diff view', exact: true });
    await view.getByRole('combobox', { name: 'Diff B' }).selectOption(naive.id);
    expect(await view.getByRole('alert').textContent()).toBe('Pick two different documents to compare.');
    expect(await view.getByRole('status', { name: 'Diff summary' }).count()).toBe(0);
    await ada.page.getByRole('button', { name: 'Close diff' }).click();
  });
});
