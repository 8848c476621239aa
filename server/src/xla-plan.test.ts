import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { AllocationLookup, type AnalysisViews } from '@seam/shared/ir';
import { Analyzer } from './analyzer';
import { testApp, type TestApp, type TestRoom } from './testing';

const dump = (folder: string, suffix: string): string =>
  readFileSync(new URL(`../../test/fixtures/xla-dump/${folder}/module_0000.jit_${folder}.${suffix}`, import.meta.url), 'utf8');

let t: TestApp;
let room: TestRoom;
beforeEach(async () => {
  t = testApp();
  room = await t.room();
});
afterEach(() => t.close());

const views = async (docId: string): Promise<AnalysisViews> =>
  (await (await t.call('GET', `/api/rooms/${room.id}/documents/${docId}/analysis?part=views`, { token: room.tokens.viewer })).json()) as AnalysisViews;

describe('XLA’s plan served with the analysis parts', () => {
  it('serves a buffer assignment’s allocations, a memory report, and an HLO dump’s kernels and pass counts in the views part', async () => {
    const ba = await t.addDocument(room, 'attention buffer assignment', dump('attention', 'cpu_after_optimizations-buffer-assignment.txt'));
    const report = await t.addDocument(room, 'attention memory report', dump('attention', 'cpu_after_optimizations-memory-usage-report.txt'));
    const hlo = await t.addDocument(room, 'attention hlo', dump('attention', 'cpu_after_optimizations.txt'));
    const baViews = await views(ba);
    expect(baViews.index.kind).toBe('buffer-assignment');
    expect(baViews.diagnostics).toEqual([]);
    expect(baViews.index.xla?.bufferAssignment?.allocations).toHaveLength(25);
    expect(baViews.index.xla?.bufferAssignment?.totalBytes).toBe(415252540);
    expect(baViews.index.outline[24]).toMatchObject({ name: 'allocation 24', lineFrom: 52, opCount: 12 });
    expect((await views(report)).index.xla?.memoryReport?.totalBytes).toBe(415252540);
    const hloViews = await views(hlo);
    expect(hloViews.index.xla?.step).toMatchObject({ instructions: 88, fusions: 13, copies: 0 });
    expect(hloViews.index.kernels).toEqual([]);
    const lookup = new AllocationLookup(baViews.index.xla?.bufferAssignment ?? { allocations: [], totalBytes: 0, totalPrinted: false, usedValues: 0 });
    const scores = hloViews.index.spills.find((s) => s.producer === 'dot_general.2');
    expect(scores && lookup.of(scores)).toMatchObject({ allocation: 24, size: 268435456 });
  });

  it('keeps a damaged buffer assignment with an error diagnostic and no allocations', async () => {
    const id = await t.addDocument(room, 'not a plan', 'BufferAssignment:\n<script>alert(1)</script>\n');
    const v = await views(id);
    expect(v.index.kind).toBe('buffer-assignment');
    expect(v.index.xla?.bufferAssignment?.allocations).toEqual([]);
    expect(v.diagnostics.map((d) => d.severity)).toEqual(['warning', 'error']);
  });

  it('indexes a buffer assignment the same in the worker thread as inline', async () => {
    const text = dump('mlp', 'cpu_after_optimizations-buffer-assignment.txt');
    const threaded = new Analyzer(pino({ level: 'silent' }), { threshold: 0 });
    const inline = new Analyzer(pino({ level: 'silent' }), { threshold: Infinity });
    try {
      const [a, b] = await Promise.all([threaded.analyzeGzip(text, 'buffer-assignment'), inline.analyzeGzip(text, 'buffer-assignment')]);
      const parsed = JSON.parse(gunzipSync(a.views).toString('utf8')) as AnalysisViews;
      expect(parsed.index.xla?.bufferAssignment?.allocations).toHaveLength(8);
      expect(parsed).toEqual(JSON.parse(gunzipSync(b.views).toString('utf8')));
    } finally {
      await threaded.close();
    }
  });
});
