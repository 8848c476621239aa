import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { TraceFormatError, type TraceSummary } from '@seam/shared/trace';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { TraceReducers } from './reducers';
import type { StoredTrace } from './stored-form';

const dir = new URL('../../../test/fixtures/trace/', import.meta.url);
const json = gunzipSync(readFileSync(new URL('mlp.trace.json.gz', dir)));
const xplane = readFileSync(new URL('mlp.xplane.pb', dir));

async function* pieces(data: Uint8Array, size = 4096): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}
const summaryOf = (s: StoredTrace): TraceSummary => JSON.parse(gunzipSync(s.summary).toString('utf8')) as TraceSummary;
const stringsOf = (s: StoredTrace): string[] => JSON.parse(gunzipSync(s.strings).toString('utf8')) as string[];

const reducers = new TraceReducers(pino({ level: 'silent' }), { analyzerWorkers: 1, analyzerHeapMb: 256 });
afterAll(() => reducers.close());

describe('TraceReducers, one worker reducing trace after trace', () => {
  it('reduces each trace as a fresh worker would, whatever the traces before it did or failed at', async () => {
    const first = await reducers.reduce(pieces(json));
    await expect(reducers.reduce(pieces(new TextEncoder().encode('{"traceEvents":[{"ph":"X",}]}')))).rejects.toThrow(TraceFormatError);
    const fromXSpace = await reducers.reduce(pieces(xplane));
    // A UTF-8 trace, then an ASCII one: each is decoded as what it is.
    const accented = await reducers.reduce(pieces(new TextEncoder().encode('{"traceEvents":[{"ph":"X","ts":1,"dur":2,"name":"r\u00e9duction"}]}'), 7));
    const again = await reducers.reduce(pieces(json, 65_536));
    expect(summaryOf(again)).toEqual(summaryOf(first));
    expect(stringsOf(again)).toEqual(stringsOf(first));
    expect(again.blocks.map((b) => gunzipSync(b.gzip))).toEqual(first.blocks.map((b) => gunzipSync(b.gzip)));
    expect(summaryOf(fromXSpace).format).toBe('xplane');
    expect(summaryOf(fromXSpace).events).toBeGreaterThan(0);
    expect(stringsOf(accented)).toContain('r\u00e9duction');
  });
});
