import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { CaptureEntry, DocumentMeta } from '@seam/shared/model';
import { launchBrowser, openAs, WEB_DIST, type Person } from '../helpers/browser';
import { captureToEnd } from '../helpers/capture';
import { createRoom, startTestServer, waitFor, type CreatedRoom, type TestServer } from '../helpers';

/**
 * Op time in Compare: two real captures of one program on the local CPU runner, each with its
 * profiler trace, compared in Chromium. Each side's measured op time comes from its own capture's
 * trace (the op table the trace view shows), and the summary says both.
 */

const PROGRAM = 'import jax\nimport jax.numpy as jnp\n\n\ndef attention(q, k, v):\n    s = q @ k.T\n    p = jax.nn.softmax(s, axis=-1)\n    return p @ v\n';
const SPEC = { shape: [256, 64], dtype: 'float32' as const };

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let ada: Person;
const errors: string[] = [];

const get = async <T>(path: string): Promise<T> =>
  (await (await fetch(`${server.url}/api/rooms/${room.id}${path}`, { headers: { authorization: `Bearer ${room.tokens.owner}` } })).json()) as T;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ child: true, env: { SEAM_RUNNER: 'on', SEAM_WEB_DIR: WEB_DIST } }), launchBrowser()]);
  room = await createRoom(server, 'Op time in Compare');
  await waitFor(async () => (await get<{ runners: unknown[] }>('/runners')).runners.length > 0, 'the local runner to connect', 120_000);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('Compare with traces on both sides', () => {
  it('shows the op time of each capture, from its own trace', async () => {
    const body = { program: PROGRAM, entry: 'attention', args: [SPEC, SPEC, SPEC], capture: ['hlo-opt', 'trace'] };
    const jobs: CaptureEntry[] = [];
    for (let i = 0; i < 2; i++) {
      const job = await captureToEnd(server, room, body);
      expect(job.status).toBe('done');
      jobs.push(job);
    }
    const docs = (await get<{ documents: DocumentMeta[] }>('')).documents;
    const of = (job: CaptureEntry, kind: string) => docs.find((d) => job.documents.includes(d.id) && d.kind === kind);
    for (const job of jobs) expect([of(job, 'hlo-opt')?.kind, of(job, 'trace')?.kind]).toEqual(['hlo-opt', 'trace']);
    // Each trace's own op table: the figure the summary must say for its side.
    const total = async (job: CaptureEntry) =>
      (await get<{ totalUs: number }[]>(`/documents/${of(job, 'trace')!.id}/trace/ops`)).reduce((n, o) => n + o.totalUs, 0);
    const totals = [await total(jobs[0]!), await total(jobs[1]!)];
    for (const t of totals) expect(t).toBeGreaterThan(0);

    ada = await openAs(browser, room.links.owner, 'Ada', errors, { viewport: { width: 1440, height: 900 } });
    await ada.page.locator('.cm-line').first().waitFor({ timeout: 30_000 });
    await ada.page.getByRole('button', { name: 'Compare' }).click();
    const view = ada.page.getByRole('region', { name: 'Diff view', exact: true });
    const pair = [await view.getByRole('combobox', { name: 'Diff A' }).inputValue(), await view.getByRole('combobox', { name: 'Diff B' }).inputValue()];
    expect(pair.sort()).toEqual(jobs.map((j) => of(j, 'hlo-opt')!.id).sort());
    const opTime = view.getByText(/^op time: /);
    await opTime.waitFor({ timeout: 60_000 });
    const text = (await opTime.textContent()) ?? '';
    expect(text).toMatch(/^op time: \S.* → \S.*/);
    await ada.page.screenshot({ path: `${process.env.TMPDIR ?? '/tmp'}/seam-diff-op-time.png` });
    expect(errors).toEqual([]);
  });
});
