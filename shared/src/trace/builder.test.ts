import { describe, expect, it } from 'vitest';
import { DEFAULT_TRACE_LIMITS, TraceBuilder, TraceFormat } from './index';

describe('TraceBuilder ordering events', () => {
  it('orders each track by start, ties in arrival order, however many runs its events come in', () => {
    const b = new TraceBuilder(TraceFormat.chromeJson, DEFAULT_TRACE_LIMITS);
    const track = b.trackOf('t', 'p', 't');
    const other = b.trackOf('u', 'p', 'u');
    // Pseudo-random starts with many ties, in runs that each go up, as a reader interleaving devices gives them.
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const arrived: { start: number; name: string }[] = [];
    for (let k = 0; k < 5000; k++) {
      const start = Math.floor(rnd() * 300);
      const name = `e${k}`;
      arrived.push({ start, name });
      b.event(k % 7 === 0 ? other : track, start, 1, name);
    }
    const t = b.finish();
    const got = (id: number) => Array.from(t.columns.start.keys()).filter((i) => t.columns.track[i] === id).map((i) => t.strings[t.columns.name[i]!]);
    const want = (onOther: boolean) => arrived
      .map((e, k) => ({ ...e, k }))
      .filter((e) => (e.k % 7 === 0) === onOther)
      .sort((x, y) => x.start - y.start || x.k - y.k)
      .map((e) => e.name);
    expect(got(t.summary.tracks.findIndex((x) => x.name === 't'))).toEqual(want(false));
    expect(got(t.summary.tracks.findIndex((x) => x.name === 'u'))).toEqual(want(true));
  });
});
