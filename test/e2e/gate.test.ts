import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { formatMB, type Analysis, type GateResult } from '@seam/shared/ir';
import type { CaptureEntry, CaptureRequestInput, DocumentMeta, GateReport, GateUnavailable, RoomExport } from '@seam/shared/model';
import type { OpAggregate } from '@seam/shared/trace';
import { seam } from '../../server/src/cli/seam-process';
import { launchBrowser, openAs, WEB_DIST, type Person } from '../helpers/browser';
import { createRoom, startTestServer, waitFor, type CreatedRoom, type TestServer } from '../helpers';
import { ATTENTION } from '../helpers/capture-kit';

/**
 * The course's gate end to end on the CPU runner: naive attention at S=1024 with XLA:CPU's YNN
 * fusion off (so the S×S scores are written by one kernel and read by others), captured with a
 * trace; the gate read over REST from what the server stored, checked figure by figure against the
 * stored analysis, op table and provenance; the same numbers from `seam gate` on the same files
 * and in the export; and the Gate card in Chromium.
 */

const RUNS = 3;
const SPEC = { shape: [1024, 128], dtype: 'bfloat16' as const };
let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let job: CaptureEntry;
let group: DocumentMeta[];
let report: GateReport;
const errors: string[] = [];
const dir = mkdtempSync(join(tmpdir(), 'seam-gate-e2e-'));

async function get(path: string, token = room.tokens.viewer): Promise<Response> {
  return fetch(`${server.url}/api/rooms/${room.id}${path}`, { headers: { authorization: `Bearer ${token}` } });
}
async function getJson<T>(path: string, token?: string): Promise<T> {
  const res = await get(path, token);
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}
async function text(docId: string): Promise<string> {
  const res = await get(`/documents/${docId}/text`);
  if (!res.ok) throw new Error(`text of ${docId}: ${res.status}`);
  return res.text();
}

async function capture(body: CaptureRequestInput): Promise<CaptureEntry> {
  const res = await fetch(`${server.url}/api/rooms/${room.id}/captures`, {
    method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  expect(res.status).toBe(202);
  const { job: queued } = (await res.json()) as { job: CaptureEntry };
  let done = queued;
  await waitFor(async () => {
    done = (await getJson<{ job: CaptureEntry }>(`/captures/${queued.id}`)).job;
    return ['done', 'failed', 'cancelled'].includes(done.status);
  }, `capture ${queued.id} to finish`, 200_000);
  expect(done.error).toBeUndefined();
  return done;
}

const gateOf = (query = '', captureId = job.id) => get(`/captures/${captureId}/gate${query}`);
const docOf = (kind: string) => group.find((d) => d.kind === kind)!;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ child: true, env: { SEAM_RUNNER: 'on', SEAM_WEB_DIR: WEB_DIST } }), launchBrowser()]);
  room = await createRoom(server, 'Gate lab');
  await waitFor(async () => (await getJson<{ runners: unknown[] }>('/runners', room.tokens.owner)).runners.length > 0, 'the local runner to connect', 120_000);
  job = await capture({
    program: ATTENTION, entry: 'attention', args: [SPEC, SPEC, SPEC], capture: ['hlo-opt', 'cost', 'trace'],
    options: { xlaFlags: '--xla_cpu_experimental_ynn_fusion_type=', repeats: RUNS },
  });
  group = (await getJson<{ documents: DocumentMeta[] }>('')).documents.filter((d) => d.captureId === job.id);
  const res = await gateOf();
  expect(res.status, await res.clone().text()).toBe(200);
  report = (await res.json()) as GateReport;
}, 400_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the gate of a CPU attention capture with a trace', () => {
  it('names the stored pieces it read: the group\'s optimized HLO, trace and cost analysis, the measured bandwidth and the traced runs', () => {
    expect(report.captureId).toBe(job.id);
    expect(report.sources.hloOpt.documentId).toBe(docOf('hlo-opt').id);
    expect(report.sources.trace.documentId).toBe(docOf('trace').id);
    expect(report.sources.cost).toMatchObject({ title: 'attention: cost analysis', field: 'bytes accessed' });
    expect(report.sources.bandwidth).toEqual(job.provenance!.bandwidth);
    expect(report.sources.runs).toBe(RUNS);
    expect(report.gate.runs).toBe(RUNS);
    expect(report.platform).toBe('cpu');
  });

  it('estimates from the stored analysis: the top spill, the 1024×1024 scores, its bytes × (1 write + 1 read per consumer)', async () => {
    const { index } = await getJson<Analysis>(`/documents/${report.sources.hloOpt.documentId}/analysis`);
    const top = index.spills[0]!;
    expect(report.gate.candidate.name).toBe(top.producer);
    expect(report.gate.candidate.type).toMatch(/^\w+\[1024,1024\]/);
    expect(report.gate.estimateBytes).toBe(top.bytes * (1 + top.consumers.length));
    expect(report.gate.estimateBytes).toBe(top.traffic);
    expect(report.gate.ops.map((o) => o.op)).toEqual([top.producer, ...top.consumers]);
    expect(report.candidates[0]).toMatchObject({ name: top.producer, estimateBytes: top.traffic, measuredUs: report.gate.measuredSeconds * 1e6 });
  });

  it('measures from the stored op table: the listed ops\' totals per run, at the measured bandwidth; ratio and verdict follow', async () => {
    const ops = await getJson<OpAggregate[]>(`/documents/${report.sources.trace.documentId}/trace/ops`);
    const g = report.gate;
    let perRun = 0;
    for (const o of g.ops) {
      const row = ops.find((r) => r.op === o.op && r.module === g.candidate.module)!;
      expect(row, o.op).toBeDefined();
      expect(o).toMatchObject({ totalUs: row.totalUs, count: row.count, perRunUs: row.totalUs / RUNS });
      expect(row.count).toBeGreaterThanOrEqual(RUNS);
      perRun += row.totalUs / RUNS;
    }
    expect(g.measuredSeconds).toBe(perRun / 1e6);
    expect(g.bandwidthBytesPerS).toBe(job.provenance!.bandwidth!.bytesPerSecond);
    expect(g.measuredBytes).toBe(g.measuredSeconds * g.bandwidthBytesPerS);
    expect(g.ratios.measuredToEstimate).toBe(g.measuredBytes / g.estimateBytes);
    expect(g.bar).toBe(0.2);
    expect(g.pass).toBe(Math.abs(g.ratios.measuredToEstimate - 1) <= 0.2);
    const cost = JSON.parse(await text(report.sources.cost!.documentId)) as Record<string, number>;
    expect(g.costModelBytes).toBe(cost['bytes accessed']);
    expect(g.ratios.costModelToEstimate).toBe(cost['bytes accessed']! / g.estimateBytes);
  });

  it('is reproducible, follows the bar and the chosen candidate, and refuses by name', async () => {
    expect(await (await gateOf()).json()).toEqual(report);
    const off = Math.abs(report.gate.ratios.measuredToEstimate - 1);
    const wide = (await (await gateOf(`?bar=${off + 0.01}`)).json()) as GateReport;
    expect(wide.gate).toMatchObject({ pass: true, bar: off + 0.01, measuredBytes: report.gate.measuredBytes });
    const pct = (await (await gateOf(`?bar=${encodeURIComponent(`${Math.round((off + 0.5) * 100)}%`)}`)).json()) as GateReport;
    expect(pct.gate.pass).toBe(true);
    if (off > 0.01) expect(((await (await gateOf(`?bar=${off - 0.01}`)).json()) as GateReport).gate.pass).toBe(false);
    const second = report.candidates.find((c) => c.measuredUs !== null && c.name !== report.gate.candidate.name);
    if (second) {
      const other = (await (await gateOf(`?value=${encodeURIComponent(second.name)}`)).json()) as GateReport;
      expect(other.gate.candidate.name).toBe(second.name);
      expect(other.gate.measuredSeconds * 1e6).toBe(second.measuredUs);
    }
    const unknown = await gateOf('?value=softmax');
    expect(unknown.status).toBe(409);
    expect(((await unknown.json()) as { error: GateUnavailable }).error).toMatchObject({ reason: 'unknown-candidate', message: expect.stringMatching(/softmax is not a spill candidate/) as unknown });
    expect((await gateOf('?bar=wide')).status).toBe(400);
    expect((await gateOf('', 'job_missing')).status).toBe(404);
    expect((await get(`/captures/${job.id}/gate`, 'not-a-token')).status).toBe(401);
  });

  it('refuses a capture group without a trace: no-trace', async () => {
    const plain = await capture({ program: ATTENTION, entry: 'attention', args: [SPEC, SPEC, SPEC], capture: ['hlo-opt'], options: { xlaFlags: '--xla_cpu_experimental_ynn_fusion_type=' } });
    const res = await gateOf('', plain.id);
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: GateUnavailable }).error).toMatchObject({ code: 'conflict', captureId: plain.id, reason: 'no-trace' });
  }, 200_000);

  it('seam gate on the same capture\'s files gives exactly the same numbers as the room', async () => {
    writeFileSync(join(dir, 'hlo-opt.txt'), await text(report.sources.hloOpt.documentId));
    writeFileSync(join(dir, 'trace.json'), await text(report.sources.trace.documentId));
    writeFileSync(join(dir, 'cost.json'), await text(report.sources.cost!.documentId));
    writeFileSync(join(dir, 'result.json'), JSON.stringify({ ok: true, provenance: job.provenance, trace: { warmup: 2, repeats: RUNS } }));
    const { code, stdout, stderr } = await seam('gate', dir, '--json');
    expect(stderr).toBe('');
    const cli = JSON.parse(stdout) as { gate: GateResult };
    expect(cli.gate).toEqual(report.gate);
    expect(code).toBe(report.gate.pass ? 0 : 1);
    const second = report.candidates.find((c) => c.measuredUs !== null && c.name !== report.gate.candidate.name);
    if (second) {
      const byName = JSON.parse((await seam('gate', dir, '--json', '--value', second.name, '--bar', '0.5')).stdout) as { gate: GateResult };
      expect(byName.gate).toEqual(((await (await gateOf(`?value=${encodeURIComponent(second.name)}&bar=0.5`)).json()) as GateReport).gate);
    }
  }, 60_000);

  it('the export carries the same gate, in JSON and as inert Markdown', async () => {
    const e = await getJson<RoomExport>('/export.json');
    expect(e.gates).toEqual([report]);
    const md = await (await get('/export.md')).text();
    expect(md).toContain('## Gates (1)');
    expect(md).toContain(`measured / estimate ${report.gate.ratios.measuredToEstimate.toFixed(3)}`);
    expect(md).toContain(report.gate.pass ? '· PASS ·' : '· FAIL ·');
    expect(md).toContain('CPU: figures are what this CPU gives.');
    expect(md).toContain(`- estimate: ${report.gate.candidate.bytes.toLocaleString('en-US')} B × (1 write + ${report.gate.candidate.consumers.length} reads) = ${formatMB(report.gate.estimateBytes)}`);
  });
});

describe('the Gate card in the room', () => {
  let ada: Person;

  it('shows the candidate, estimate, measured time as bytes, cost model, ratio and verdict for the capture group, and each spill\'s measured time', async () => {
    ada = await openAs(browser, room.links.owner, 'Ada', errors);
    const docs = ada.page.getByRole('list', { name: 'Documents' });
    await docs.getByRole('button', { name: /HLO·opt/ }).first().click();
    await ada.page.getByRole('tab', { name: 'Spills' }).click();
    const card = ada.page.getByRole('region', { name: 'Gate' });
    const g = report.gate;
    const figure = (name: string) => card.locator(`[data-figure="${name}"]`);
    await expect.poll(() => figure('measured').getAttribute('data-bytes'), { timeout: 30_000 }).toBe(String(g.measuredBytes));
    expect(await figure('estimate').getAttribute('data-bytes')).toBe(String(g.estimateBytes));
    expect(await figure('cost').getAttribute('data-bytes')).toBe(String(g.costModelBytes));
    expect(await figure('estimate').textContent()).toContain(formatMB(g.estimateBytes));
    expect(await figure('measured').textContent()).toContain(formatMB(g.measuredBytes));
    expect(await figure('measured').textContent()).toContain(`${(g.bandwidthBytesPerS / 1e9).toFixed(2)} GB/s measured copy bandwidth (no nameplate figure for cpu)`);
    expect(await figure('ratio').textContent()).toContain(g.ratios.measuredToEstimate.toFixed(3));
    expect(await card.getAttribute('data-pass')).toBe(String(g.pass));
    expect(await card.getByRole('combobox', { name: 'Gate candidate' }).inputValue()).toBe(g.candidate.name);
    expect(await card.textContent()).toContain('CPU: figures are what this CPU gives');
    expect(await card.getByRole('table', { name: 'Gate ops' }).locator('[data-op]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-op')))).toEqual(g.ops.map((o) => o.op));
    const first = ada.page.getByRole('table', { name: 'Spill candidates by traffic' }).getByRole('row').nth(1);
    expect(await first.locator('[data-measured-us]').getAttribute('data-measured-us')).toBe(String(report.candidates[0]!.measuredUs));
    await ada.page.screenshot({ path: '/tmp/seam-gate-card.png' });

    // A bar just wide enough passes it; the verdict follows the server's.
    const off = Math.abs(g.ratios.measuredToEstimate - 1);
    await card.getByRole('spinbutton', { name: 'Bar (%)' }).fill(String(Math.ceil(off * 100) + 1));
    await card.getByRole('spinbutton', { name: 'Bar (%)' }).press('Enter');
    await expect.poll(() => card.getAttribute('data-pass')).toBe('true');
    expect(errors).toEqual([]);
  }, 90_000);
});
