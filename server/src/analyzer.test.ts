import { gunzipSync } from 'node:zlib';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { analyze, readAnalysis } from '@seam/shared/ir';
import { AnalyzerBusy, Analyzer } from './analyzer';

const HLO = 'HloModule m\n\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT r = f32[8]{0} negate(p)\n}\n';
const json = (gz: Uint8Array): unknown => JSON.parse(gunzipSync(gz).toString('utf8'));
const silent = pino({ level: 'silent' });

/** An optimized HLO module of `n` adds, about 150 bytes a line. */
function bigHlo(n: number): string {
  const line = (i: number) => `  %add.${i} = f32[128,256]{1,0} add(f32[128,256]{1,0} %p0, f32[128,256]{1,0} %p1), metadata={op_name="jit(f)/add" source_line=${i}}`;
  return `HloModule m\n\nENTRY e {\n  %p0 = f32[128,256]{1,0} parameter(0)\n  %p1 = f32[128,256]{1,0} parameter(1)\n${Array.from({ length: n }, (_, i) => line(i + 1)).join('\n')}\n  ROOT %r = f32[128,256]{1,0} negate(%p0)\n}\n`;
}

type Stored = { index: { kind: string; bytes: number; lines: number; values: unknown[] }; diagnostics: { severity: string; message: string }[] };

describe('Analyzer', () => {
  it('gives the same analysis, whole and in parts, inline and in the worker thread', async () => {
    const inline = new Analyzer(pino({ level: 'silent' }), { threshold: Infinity });
    const threaded = new Analyzer(pino({ level: 'silent' }), { threshold: 0 });
    try {
      const expected = JSON.parse(JSON.stringify(analyze(HLO, 'hlo')));
      for (const a of [inline, threaded]) {
        const forms = await a.analyzeGzip(HLO, 'hlo');
        expect(json(forms.analysis)).toEqual(expected);
        expect(readAnalysis(json(forms.views) as never, json(forms.keys) as never)).toEqual(expected);
      }
      const again = await threaded.analyzeGzip('not a dump', 'text');
      expect((json(again.analysis) as { index: { kind: string } }).index.kind).toBe('text');
    } finally {
      await threaded.close();
    }
  });

  it('splits a whole stored analysis into the same parts as ingest writes, in the worker thread', async () => {
    const a = new Analyzer(pino({ level: 'silent' }));
    try {
      const forms = await a.analyzeGzip(HLO, 'hlo');
      const parts = await a.partsGzip(forms.analysis);
      expect(json(parts.views)).toEqual(json(forms.views));
      expect(json(parts.keys)).toEqual(json(forms.keys));
      await expect(a.partsGzip(new Uint8Array([1, 2, 3]))).rejects.toThrow(/analysis failed/);
    } finally {
      await a.close();
    }
  });

  it('stores a dump longer than analyzeChars unindexed, with a diagnostic that says why', async () => {
    const a = new Analyzer(silent, { analyzeChars: 40 });
    const stored = json((await a.analyzeGzip(HLO, 'hlo')).analysis) as Stored;
    expect(stored.index).toMatchObject({ kind: 'hlo', bytes: HLO.length, lines: 7, values: [] });
    expect(stored.diagnostics).toEqual([{ from: 0, to: 0, severity: 'error', message: expect.stringMatching(/^not indexed: .*more than the 40 .*SEAM_ANALYZE_CHARS/) }]);
  });

  it('stores a dump whose indexing passes the worker heap unindexed, and the next analysis gets a fresh worker', async () => {
    const a = new Analyzer(silent, { threshold: 0, analyzerHeapMb: 32 });
    try {
      const text = bigHlo(40_000);
      const stored = json((await a.analyzeGzip(text, 'hlo-opt')).analysis) as Stored;
      expect(stored.index).toMatchObject({ kind: 'hlo-opt', bytes: text.length, values: [] });
      expect(stored.diagnostics[0]?.message).toMatch(/more than the 32 MB .*SEAM_ANALYZER_HEAP_MB/);
      expect((json((await a.analyzeGzip(HLO, 'hlo')).analysis) as Stored).diagnostics).toEqual([]);
    } finally {
      await a.close();
    }
  });

  it('stores a dump whose indexing takes longer than analyzerSeconds unindexed', async () => {
    const a = new Analyzer(silent, { threshold: 0, analyzerSeconds: 0.001 });
    try {
      const stored = json((await a.analyzeGzip(HLO, 'hlo')).analysis) as Stored;
      expect(stored.diagnostics[0]?.message).toMatch(/longer than the 0.001 s .*SEAM_ANALYZER_S/);
    } finally {
      await a.close();
    }
  });

  it('runs analyzerWorkers analyses at once, queues analyzerQueue more, and refuses the next as busy', async () => {
    const a = new Analyzer(silent, { threshold: 0, analyzerWorkers: 1, analyzerQueue: 1 });
    try {
      const first = a.analyzeGzip(HLO, 'hlo');
      const queued = a.analyzeGzip(HLO, 'hlo');
      await expect(a.analyzeGzip(HLO, 'hlo')).rejects.toThrow(AnalyzerBusy);
      await expect(a.partsGzip(new Uint8Array())).rejects.toThrow(/analyzer is busy/);
      const done = await Promise.all([first, queued]);
      expect(done.map((f) => (json(f.analysis) as Stored).index.kind)).toEqual(['hlo', 'hlo']);
      // The slots are free again.
      expect((json((await a.analyzeGzip(HLO, 'hlo')).analysis) as Stored).index.kind).toBe('hlo');
    } finally {
      await a.close();
    }
  });
});
