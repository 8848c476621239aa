import { gunzipSync } from 'node:zlib';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { analyze } from '@seam/shared/ir';
import { Analyzer } from './analyzer';

const HLO = 'HloModule m\n\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT r = f32[8]{0} negate(p)\n}\n';

describe('Analyzer', () => {
  it('gives the same analysis inline and in the worker thread', async () => {
    const inline = new Analyzer(pino({ level: 'silent' }), Infinity);
    const threaded = new Analyzer(pino({ level: 'silent' }), 0);
    try {
      const expected = JSON.parse(JSON.stringify(analyze(HLO, 'hlo')));
      for (const a of [inline, threaded]) {
        const json = JSON.parse(gunzipSync(await a.analyzeGzip(HLO, 'hlo')).toString('utf8'));
        expect(json).toEqual(expected);
      }
      const again = JSON.parse(gunzipSync(await threaded.analyzeGzip('not a dump', 'text')).toString('utf8'));
      expect(again.index.kind).toBe('text');
    } finally {
      await threaded.close();
    }
  });
});
