import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Annotation, CaptureEntry, DocumentMeta } from '@seam/shared/model';
import { launchBrowser, openAs, WEB_DIST, type Person } from '../helpers/browser';
import { createRoom, listAnnotations, startTestServer, waitFor, type CreatedRoom, type TestServer } from '../helpers';

/**
 * "Run again" end to end: a real server with its local CPU runner on JAX, the owner in Chromium.
 * A capture of the MLP is annotated on its jaxpr and optimized HLO, the program is edited (relu →
 * gelu, one line), and run again: the new capture is v2 of mlp, and the annotations sit on its
 * matched lines, marked carried, the relu's detached.
 */

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let ada: Person;
const errors: string[] = [];
let v1: CaptureEntry;

const EDITED = 'import jax\n\n\ndef mlp(x, w, b):\n    return jax.nn.gelu(x @ w + b).mean(axis=-1)\n';

async function api<T>(method: string, path: string, token: string, body?: unknown, roomId = room.id): Promise<{ status: number; body: T }> {
  const res = await fetch(`${server.url}/api/rooms/${roomId}${path}`, {
    method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as T };
}

const jobs = async (roomId = room.id, token = room.tokens.owner) => (await api<{ jobs: CaptureEntry[] }>('GET', '/captures', token, undefined, roomId)).body.jobs;
const text = async (docId: string) => (await fetch(`${server.url}/api/rooms/${room.id}/documents/${docId}/text`, { headers: { authorization: `Bearer ${room.tokens.owner}` } })).text();

/** Annotates the first match of `pattern` in document `docId` as Ada, through the REST API. */
async function annotate(docId: string, pattern: RegExp, body: string): Promise<Annotation> {
  const t = await text(docId);
  const m = pattern.exec(t);
  if (!m) throw new Error(`${pattern} is not in ${docId}`);
  const res = await api<Annotation>('POST', '/annotations', room.tokens.owner, { docId, from: m.index, to: m.index + m[0].length, kind: 'note', body, author: { id: 'ada', name: 'Ada', color: '#1971c2' } });
  expect(res.status).toBe(201);
  return res.body;
}

async function openCapture(page: Page) {
  await page.getByRole('tab', { name: 'Capture' }).click();
  return page.getByRole('region', { name: 'Capture' });
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ child: true, env: { SEAM_RUNNER: 'on', SEAM_WEB_DIR: WEB_DIST } }), launchBrowser()]);
  room = await createRoom(server, 'Run again lab');
  await waitFor(async () => (await api<{ runners: unknown[] }>('GET', '/runners', room.tokens.owner)).body.runners.length > 0, 'the local runner to connect', 120_000);
  ada = await openAs(browser, room.links.owner, 'Ada', errors);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('Run again', () => {
  it('makes the edited program v2 of the capture and carries its annotations to the matched lines, the relu’s detached', async () => {
    const panel = await openCapture(ada.page);
    await panel.getByRole('button', { name: 'Load the MLP example' }).click();
    await panel.getByRole('button', { name: 'Run capture' }).click();
    const first = panel.getByRole('list', { name: 'Capture queue' }).locator('[data-status="done"]');
    await first.waitFor({ timeout: 150_000 });
    v1 = (await jobs())[0]!;
    expect(v1.status).toBe('done');
    const docs = (await api<{ documents: DocumentMeta[] }>('GET', '', room.tokens.owner)).body.documents;
    const of = (job: CaptureEntry, kind: string) => docs.find((d) => job.documents.includes(d.id) && d.kind === kind)!;

    // Three notes on v1: the matmul in the jaxpr, the relu's max in the jaxpr, the dot in the optimized HLO.
    const jaxpr = of(v1, 'jaxpr');
    const opt = of(v1, 'hlo-opt');
    const dot = await annotate(jaxpr.id, /dot_general/, 'the matmul');
    const max = await annotate(jaxpr.id, /max \w+ 0\.0:f32\[\]/, 'relu is a max with 0');
    const hloDot = await annotate(opt.id, /%[\w.]+(?= = f32\[32,128\]\{1,0\} dot\()/, 'fused into the reduction');

    // One line of the program edited, then Run again on v1's card.
    await panel.getByRole('textbox', { name: 'Program' }).click();
    await ada.page.keyboard.press('Control+a');
    await ada.page.keyboard.insertText(EDITED);
    await first.getByRole('button', { name: 'Run again' }).click();
    const second = panel.getByRole('listitem', { name: 'mlp v2 of mlp done' });
    await second.waitFor({ timeout: 150_000 });
    await second.scrollIntoViewIfNeeded();
    await ada.page.screenshot({ path: join(tmpdir(), 'seam-capture-rerun-card.png') });
    expect(await second.locator('.version').textContent()).toMatch(/^\s*v2 of mlp\s*·\s*previous: v1\s*·\s*3 annotations carried, 1 detached\s*$/);

    const v2 = (await jobs()).find((j) => j.id !== v1.id)!;
    expect(v2).toMatchObject({ versionOf: v1.id, version: 2, entry: 'mlp', args: v1.args, capture: v1.capture, carried: { annotations: 3, detached: 1, notCarried: 0 } });
    const all = await listAnnotations(server, room.id, room.tokens.owner);
    const copyOf = (a: Annotation) => all.find((x) => x.carried?.annotationId === a.id)!;
    // The originals are all still there, unchanged.
    for (const a of [dot, max, hloDot]) expect(all.find((x) => x.id === a.id)).toEqual(a);
    const docs2 = (await api<{ documents: DocumentMeta[] }>('GET', '', room.tokens.owner)).body.documents;
    const jaxpr2 = docs2.find((d) => v2.documents.includes(d.id) && d.kind === 'jaxpr')!;
    const opt2 = docs2.find((d) => v2.documents.includes(d.id) && d.kind === 'hlo-opt')!;
    const jaxpr2Text = await text(jaxpr2.id);
    const opt2Text = await text(opt2.id);
    expect(copyOf(dot)).toMatchObject({ docId: jaxpr2.id, body: 'the matmul', carried: { docId: jaxpr.id, captureId: v1.id, detached: false } });
    expect(jaxpr2Text.slice(copyOf(dot).from, copyOf(dot).to)).toBe('dot_general');
    expect(jaxpr2Text).toContain('tanh');
    expect(copyOf(max)).toMatchObject({ docId: jaxpr2.id, from: 0, to: 0, quote: { exact: max.quote.exact }, carried: { detached: true } });
    const h = copyOf(hloDot);
    expect(h).toMatchObject({ docId: opt2.id, carried: { docId: opt.id, detached: false } });
    expect(opt2Text.slice(h.from, h.to)).toMatch(/^%[\w.]+$/);
    expect(opt2Text.slice(h.from).split('\n')[0]).toMatch(/ = f32\[32,128\]\{1,0\} dot\(/);

    // The link to the previous version brings v1's card into focus.
    await second.getByRole('button', { name: 'Show the previous version (v1)' }).click();
    expect(await ada.page.evaluate(() => document.activeElement?.id)).toBe(`capture-${v1.id}`);

    // The new optimized HLO opens with the carried note on its dot, marked carried from v1.
    await second.getByRole('button', { name: 'Open mlp: HLO (optimized)' }).click();
    const mark = ada.page.locator(`.cm-content [data-annotation-id="${h.id}"]`);
    await mark.first().waitFor();
    expect(await mark.allTextContents()).toEqual([opt2Text.slice(h.from, h.to)]);
    await ada.page.getByRole('tab', { name: 'Annotations' }).click();
    const notes = ada.page.getByRole('region', { name: 'Annotations' });
    const hCard = notes.locator(`[data-annotation-id="${h.id}"]`);
    expect(await hCard.getByRole('button', { name: 'Open the original annotation' }).textContent()).toBe('carried from v1 · mlp: HLO (optimized)');
    const detachedGroup = notes.getByRole('region', { name: 'Detached' });
    expect(await detachedGroup.locator('[data-annotation-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-annotation-id')))).toEqual([copyOf(max).id]);
    expect(await detachedGroup.getByLabel('Quote').textContent()).toBe(max.quote.exact);
    expect(await detachedGroup.getByRole('button', { name: 'Open the original annotation' }).textContent()).toBe('carried from v1 · mlp: jaxpr');
    await detachedGroup.scrollIntoViewIfNeeded();
    await ada.page.screenshot({ path: join(tmpdir(), 'seam-capture-rerun.png') });

    // "Open the original" goes back to v1's note, on v1's optimized HLO.
    await hCard.getByRole('button', { name: 'Open the original annotation' }).click();
    await ada.page.locator(`.cm-content [data-annotation-id="${hloDot.id}"]`).first().waitFor();
    expect(errors).toEqual([]);
  });

  it('refuses a hostile previous capture with a clear error and queues nothing', async () => {
    const other = await createRoom(server, 'Elsewhere');
    const before = (await jobs()).length;
    const annotations = (await listAnnotations(server, room.id, room.tokens.owner)).length;
    const body = { program: EDITED, entry: 'mlp', args: v1.args, capture: ['jaxpr'] };
    const post = (extra: object, token = room.tokens.owner, roomId = room.id) => api<{ error?: { code: string; message: string } }>('POST', '/captures', token, { ...body, ...extra }, roomId);

    const unknown = await post({ previous: 'cap_doesNotExist' });
    expect([unknown.status, unknown.body.error?.code, unknown.body.error?.message]).toEqual([404, 'not_found', 'no capture cap_doesNotExist in this room to run again']);
    // Another room's owner naming this room's capture: as unknown there as a made-up id.
    const foreign = await post({ previous: v1.id }, other.tokens.owner, other.id);
    expect([foreign.status, foreign.body.error?.message]).toEqual([404, `no capture ${v1.id} in this room to run again`]);
    const reader = await post({ previous: v1.id }, room.tokens.viewer);
    expect([reader.status, reader.body.error?.code]).toEqual([403, 'forbidden']);
    const otherEntry = await post({ previous: v1.id, entry: 'loss' });
    expect([otherEntry.status, otherEntry.body.error?.message]).toEqual([400, expect.stringContaining(`capture ${v1.id} ran mlp`)]);
    const malformed = await post({ previous: '../../x' });
    expect([malformed.status, malformed.body.error?.message]).toEqual([400, expect.stringContaining('previous must be a capture id')]);

    expect((await jobs()).length).toBe(before);
    expect(await jobs(other.id, other.tokens.owner)).toEqual([]);
    expect((await listAnnotations(server, room.id, room.tokens.owner)).length).toBe(annotations);
  });
});
