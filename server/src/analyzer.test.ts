import { gunzipSync } from 'node:zlib';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { analyze, readAnalysis } from '@seam/shared/ir';
import { Analyzer } from './analyzer';

const HLO = 'HloModule m\n\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT r = f32[8]{0} negate(p)\n}\n';
const json = (gz: Uint8Array): unknown => JSON.parse(gunzipSync(gz).toString('utf8'));

describe('Analyzer', () => {
  it('gives the same analysis, whole and in parts, inline and in the worker thread', async () => {
    const inline = new Analyzer(pino({ level: 'silent' }), Infinity);
    const threaded = new Analyzer(pino({ level: 'silent' }), 0);
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
});
