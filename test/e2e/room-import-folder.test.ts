import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { analyze, linkLayers, mappingToMarkdown } from '@seam/shared/ir';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { dropFiles } from '../helpers/dump-room';
import { createRoom, type CreatedRoom, type TestServer } from '../helpers/server';
import { filesUnder, roomDocuments, writeJaxDump } from '../helpers/import-kit';

/** The MLP's XLA dump with every pass dumped and no jaxpr or StableHLO beside it. */
const PASSES_FIXTURE = fileURLToPath(new URL('../fixtures/xla-dump/mlp-passes', import.meta.url));

let scratch: string;
let dump: string;
let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let ada: Person;
const errors: string[] = [];

/** The text of the one file of the dump folder whose path matches `pattern`. */
function dumpFile(pattern: RegExp): string {
  const found = filesUnder(dump).filter((f) => pattern.test(f));
  if (found.length !== 1) throw new Error(`${found.length} files match ${pattern} in the dump folder`);
  return readFileSync(join(dump, found[0]!), 'utf8');
}

/** "module 0003 jit_f" for every module XLA wrote files of, as the list should name them. */
function moduleLabels(files: readonly string[]): string[] {
  const labels = new Set<string>();
  for (const f of files) {
    const m = /(?:^|\/)module_(\d+)\.([^./]+)\./.exec(f);
    if (m) labels.add(`module ${m[1]!.padStart(4, '0')} ${m[2]}`);
  }
  return [...labels].sort();
}

const docList = (page: Page): Locator => page.getByRole('list', { name: 'Documents' });
const groupLabels = async (page: Page): Promise<string[]> => (await docList(page).locator('li.group > button').allTextContents()).map((g) => g.replace(/^[▾▸]\s*/, '').trim());
const groupEntry = (page: Page, label: string): Locator => docList(page).locator('li.group').filter({ has: page.getByRole('button', { name: label, exact: true }) });

/** The entry of the group named `label`, unfolded (a room of many groups shows most of them folded). */
async function openGroup(page: Page, label: string): Promise<Locator> {
  const button = docList(page).getByRole('button', { name: label, exact: true });
  if ((await button.getAttribute('aria-expanded')) === 'false') await button.click();
  await docList(page).getByRole('list', { name: label, exact: true }).waitFor();
  return groupEntry(page, label);
}
/** Presses `name` (Split view, Mapping) so that it ends up pressed afresh: released first when it already was. */
async function pressAfresh(page: Page, name: string): Promise<void> {
  const button = page.getByRole('button', { name, exact: true });
  if ((await button.getAttribute('aria-pressed')) === 'true') await button.click();
  await button.click();
}
/** From now on, records every text the progress line shows, as the page draws it (see `progressSeen`). */
async function recordProgress(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { seenProgress: string[] }).seenProgress = seen;
    new MutationObserver(() => {
      const t = document.querySelector('[aria-label="Upload progress"] .text')?.textContent;
      if (t && seen[seen.length - 1] !== t) seen.push(t);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}
const progressSeen = (page: Page): Promise<string[]> => page.evaluate(() => (window as unknown as { seenProgress: string[] }).seenProgress);

/** Runs `body` with the page's uplink slowed to `bytesPerSecond` (Chromium's network emulation), so an upload is seen on its way. */
async function onSlowUplink(person: Person, bytesPerSecond: number, body: () => Promise<void>): Promise<void> {
  const cdp = await person.context.newCDPSession(person.page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond });
  try {
    await body();
  } finally {
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await cdp.detach();
  }
}

const paneNames = (page: Page): Promise<string[]> => page.locator('section.pane').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'seam-room-import-'));
  dump = join(scratch, 'dump');
  writeJaxDump(dump);
  [server, browser] = await Promise.all([startWebServer({ SEAM_DOCUMENTS_PER_ROOM: '2000' }), launchBrowser()]);
  room = await createRoom(server, 'Production dumps');
  ada = await openAs(browser, room.links.owner, 'Ada', errors);
  await ada.page.getByRole('heading', { name: 'This room has no dumps yet' }).waitFor();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('a JAX dump folder brought into a room from the browser', () => {
  it('imports a picked folder as one entry per module, shows its progress, and lists the files it skipped with their reasons', async () => {
    const page = ada.page;
    await recordProgress(page);
    const files = filesUnder(dump);
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Import a dump folder' }).click();
    await (await chooser).setFiles(dump);

    const result = page.getByRole('region', { name: 'Import result' });
    const labels = moduleLabels(files);
    expect(labels.length).toBeGreaterThanOrEqual(3);
    await expect.poll(() => result.getByRole('status').textContent(), { timeout: 90_000 }).toMatch(new RegExp(`^Imported \\d+ files into ${labels.length} groups: \\d+ added, 0 unchanged; \\d+ skipped$`));
    const seen = await progressSeen(page);
    expect(seen.some((t) => new RegExp(`^Uploading ${files.length} files · \\d+% · .+ of .+$`).test(t))).toBe(true);
    expect(seen).toContain(`Importing ${files.length} files…`);

    // One entry per module, named as XLA numbered it, each holding its own layers.
    expect((await groupLabels(page)).sort()).toEqual(labels);
    const f = labels.find((l) => l.endsWith(' jit_f'))!;
    const fDocs = await (await openGroup(page, f)).locator('button.doc').allTextContents();
    for (const badge of ['JAXPR', 'SHLO', 'HLO', 'HLO·opt']) expect(fDocs.some((t) => t.startsWith(badge))).toBe(true);
    expect(fDocs.join('\n')).not.toContain('train_step');

    // The protos are skipped, each with the reason.
    await result.locator('summary').click();
    const skipped = await result.getByRole('list', { name: 'Skipped files' }).locator('li').allTextContents();
    const protos = files.filter((p) => p.endsWith('.pb'));
    expect(protos.length).toBeGreaterThan(0);
    for (const p of protos) expect(skipped.find((s) => s.includes(p))).toMatch(/protobuf/);

    // What the list shows is what the server holds.
    const held = await roomDocuments(server, room);
    expect(held.filter((d) => d.module?.name === 'jit_f').length).toBe(fDocs.length);
    expect(errors).toEqual([]);
  });

  it('reads a folder dropped from the desktop through its directory entries, with the same paths as when picked, so nothing comes in twice', async () => {
    const page = ada.page;
    const result = page.getByRole('region', { name: 'Import result' });
    const picked = (await result.getByRole('status').textContent())!;
    const skipped = /; (\d+) skipped$/.exec(picked)![1];
    const before = await roomDocuments(server, room);
    await result.getByRole('button', { name: 'Dismiss' }).click();
    // A drop from the desktop as Chromium delivers one, folders as FileSystemDirectoryEntry.
    const cdp = await ada.context.newCDPSession(page);
    const data = { items: [], files: [dump], dragOperationsMask: 1 };
    for (const type of ['dragEnter', 'dragOver', 'drop'] as const) await cdp.send('Input.dispatchDragEvent', { type, x: 600, y: 400, data });
    await cdp.detach();
    await expect.poll(() => result.getByRole('status').textContent(), { timeout: 60_000 }).toMatch(new RegExp(`^Imported ${before.length} files(?: into \\d+ groups?)?: 0 added, ${before.length} unchanged; ${skipped} skipped$`));
    expect((await roomDocuments(server, room)).length).toBe(before.length);
    expect(errors).toEqual([]);
  });

  it("opens split view and Mapping on one module and pairs that module's layers only, naming it", async () => {
    const page = ada.page;
    const f = (await groupLabels(page)).find((l) => l.endsWith(' jit_f'))!;
    await (await openGroup(page, f)).locator('button.doc', { hasText: 'JAXPR' }).click();
    await page.locator('.cm-line', { hasText: 'lambda' }).first().waitFor();

    await page.getByRole('button', { name: 'Split view' }).click();
    await expect.poll(() => paneNames(page).then((n) => n.length)).toBe(3);
    const held = await roomDocuments(server, room);
    const ofF = new Set(held.filter((d) => d.module?.name === 'jit_f').map((d) => `Pane: ${d.title}`));
    for (const p of await paneNames(page)) expect(ofF.has(p)).toBe(true);
    expect(await page.getByRole('status', { name: 'Split view group' }).textContent()).toMatch(new RegExp(`Pairing within\\s*${f}\\s*$`));

    await page.getByRole('button', { name: 'Mapping' }).click();
    const mapping = page.getByRole('region', { name: 'Mapping' });
    expect(await mapping.getByLabel('Mapped group').textContent()).toBe(f);
    await mapping.locator('summary', { hasText: 'Markdown' }).click({ timeout: 30_000 });
    const md = mapping.getByRole('textbox', { name: 'Mapping Markdown' });
    await expect.poll(async () => (await md.count()) > 0 && (await md.inputValue()).length > 0, { timeout: 30_000 }).toBe(true);

    // Exactly the table of this module's jaxpr, StableHLO and optimized HLO, though the other modules' are in the room.
    const jaxpr = analyze(dumpFile(/\/jax_\d+_f\.jaxpr\.txt$/), 'jaxpr');
    const shlo = analyze(dumpFile(/\/jax_ir\d+_jit_f_compile\.mlir$/), 'stablehlo');
    const hlo = analyze(dumpFile(/\/module_\d+\.jit_f\.cpu_after_optimizations\.txt$/), 'hlo-opt');
    const expected = mappingToMarkdown(linkLayers(jaxpr, shlo, hlo));
    expect(expected).toContain('dot_general');
    expect(await md.inputValue()).toBe(expected);
    expect(errors).toEqual([]);
  });

  it("says which layers a module lacks instead of borrowing another module's, for a dropped .tar.gz", async () => {
    const page = ada.page;
    // As people pack a dump folder: `tar czf mlp-passes.tar.gz mlp-passes/`.
    const archive = execFileSync('tar', ['czf', '-', '-C', dirname(PASSES_FIXTURE), basename(PASSES_FIXTURE)]);
    await dropFiles(page, [{ name: 'mlp-passes.tar.gz', bytes: archive }]);
    const nav = page.getByRole('navigation', { name: 'Room documents' });
    await expect.poll(async () => (await nav.getByRole('alert').allTextContents()).join('') + ((await nav.getByRole('region', { name: 'Import result' }).getByRole('status').allTextContents()).join('')), { timeout: 60_000 }).toMatch(/^Imported \d+ files into 1 group: \d+ added/);
    const passes = readdirSync(PASSES_FIXTURE).filter((f) => /^module_0000\.jit_mlp\.\d{4}\./.test(f)).length;
    const group = await openGroup(page, 'module 0000 jit_mlp');
    await group.getByRole('button', { name: `${passes} pass dumps` }).click();
    expect(await group.getByRole('list', { name: 'module 0000 jit_mlp: pass dumps' }).locator('button.doc').count()).toBe(passes);

    await group.getByRole('button', { name: /^HLO·opt after optimizations \(cpu\)/ }).click();
    await pressAfresh(page, 'Split view');
    await pressAfresh(page, 'Mapping');
    const bar = page.getByRole('status', { name: 'Split view group' });
    await expect.poll(() => bar.textContent()).toMatch(/module 0000 jit_mlp\s*· module 0000 jit_mlp has no jaxpr and no StableHLO/);
    const ofMlp = new Set((await roomDocuments(server, room)).filter((d) => d.module?.name === 'jit_mlp').map((d) => `Pane: ${d.title}`));
    for (const p of await paneNames(page)) expect(ofMlp.has(p)).toBe(true);
    const mapping = page.getByRole('region', { name: 'Mapping' });
    expect(await mapping.getByLabel('Mapped group').textContent()).toBe('module 0000 jit_mlp');
    expect(await mapping.getByRole('status').textContent()).toBe('module 0000 jit_mlp has no jaxpr and no StableHLO: Mapping pairs the layers of one group and borrows none from another.');
    expect(errors).toEqual([]);
  });

  it('cancels a slow import on the way, and nothing of it is added', async () => {
    const page = ada.page;
    const before = (await roomDocuments(server, room)).length;
    // The upload is still going when Cancel is pressed.
    await onSlowUplink(ada, 16 * 1024, async () => {
      const chooser = page.waitForEvent('filechooser');
      await page.getByRole('button', { name: 'Import a dump folder' }).click();
      await (await chooser).setFiles(dump);
      const progress = page.getByRole('status', { name: 'Upload progress' });
      await expect.poll(() => progress.locator('.text').textContent()).toMatch(/^Uploading \d+ files · \d+% · /);
      await progress.getByRole('button', { name: 'Cancel' }).click();
      const alert = page.getByRole('navigation', { name: 'Room documents' }).getByRole('alert');
      await expect.poll(() => alert.textContent()).toMatch(/^\d+ files: cancelled, nothing was added$/);
      expect(await progress.count()).toBe(0);
    });
    expect((await roomDocuments(server, room)).length).toBe(before);
    expect(errors).toEqual([]);
  });

  it("shows one dump's upload in percent and bytes, then that the server is adding it", async () => {
    const page = ada.page;
    const file = fileURLToPath(new URL('../fixtures/ir/attention-fused/hlo-opt.txt', import.meta.url));
    await recordProgress(page);
    await onSlowUplink(ada, 1024, async () => {
      const chooser = page.waitForEvent('filechooser');
      await page.getByRole('button', { name: 'Upload files' }).click();
      await (await chooser).setFiles(file);
      await expect.poll(() => roomDocuments(server, room).then((d) => d.some((x) => x.title === 'hlo-opt.txt')), { timeout: 60_000 }).toBe(true);
    });
    const seen = await progressSeen(page);
    expect(seen.some((t) => /^Uploading hlo-opt\.txt · \d+% · \d+ (B|KB) of \d+ KB$/.test(t))).toBe(true);
    expect(seen).toContain('Adding hlo-opt.txt…');
    expect(errors).toEqual([]);
  });

  it("shows the server's error for a broken archive and adds nothing", async () => {
    const page = ada.page;
    const before = (await roomDocuments(server, room)).length;
    await dropFiles(page, [{ name: 'broken.zip', bytes: Buffer.from('PK\u0003\u0004 this is not a zip archive at all') }]);
    const alert = page.getByRole('navigation', { name: 'Room documents' }).getByRole('alert');
    await expect.poll(() => alert.textContent(), { timeout: 30_000 }).toMatch(/^broken\.zip: .+/);
    expect((await roomDocuments(server, room)).length).toBe(before);
  });

  it('gives a viewer no way to import', async () => {
    const cy = await openAs(browser, room.links.viewer, 'Cy', errors);
    await groupEntry(cy.page, 'module 0000 jit_mlp').waitFor();
    const nav = cy.page.getByRole('navigation', { name: 'Room documents' });
    for (const name of ['Import a dump folder', 'Upload files', 'Paste']) expect(await nav.getByRole('button', { name }).count()).toBe(0);
    expect(await nav.locator('input[type=file]').count()).toBe(0);
    await cy.context.close();
    expect(errors).toEqual([]);
  });
});
