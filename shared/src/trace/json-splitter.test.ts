import { describe, expect, it } from 'vitest';
import { DEFAULT_TRACE_LIMITS, JsonEventSplitter, TraceFormatError, TraceTooLarge, type TraceLimits } from './index';

/** Splits `text` written in pieces of `chunk` characters; the events as handed on, with their indexes. */
function split(text: string, chunk: number, limits: Pick<TraceLimits, 'maxEventBytes' | 'maxDepth'> = DEFAULT_TRACE_LIMITS): unknown[] {
  const out: unknown[] = [];
  const s = new JsonEventSplitter((v, i) => out.push([i, v]), limits);
  for (let i = 0; i < text.length; i += chunk) s.write(text.slice(i, i + chunk));
  expect(s.end()).toBe(out.length);
  return out;
}

/** Events whose text holds what a boundary search could mistake: `},{` in strings, escapes, arrays of objects, nesting, non-ASCII. */
const tricky = Array.from({ length: 300 }, (_, i) => ({
  ph: 'X', pid: i % 3, tid: `t${i % 5}`, ts: i * 1.5, dur: 0.25, name: i % 7 === 0 ? `a},{"b":"c\\"},\n{` : `op.${i}`,
  args: i % 11 === 0 ? { list: [{ a: 1 }, { b: [2, { c: 3 }] }], s: '\u00e9\u4e2d}, {' } : { hlo_op: `op.${i}`, hlo_module: 'jit_f' },
}));
const text = `{"displayTimeUnit":"ns","traceEvents":[\n${tricky.map((e) => JSON.stringify(e)).join(',\n')}\n],"metadata":{"x":[{"a":1},{"b":2}]}}`;
const expected = tricky.map((e, i) => [i, e]);

describe('JsonEventSplitter reading runs of events at once', () => {
  it('hands on the same events, in order, whatever the pieces', () => {
    for (const chunk of [1, 7, 64, 333, 4096, 65_536, text.length]) expect(split(text, chunk)).toEqual(expected);
  });

  it('reads runs no longer than maxEventBytes, and still every event', () => {
    expect(split(text, text.length, { maxEventBytes: 600, maxDepth: 64 })).toEqual(expected);
  });

  it('refuses an event nested too deep inside a run, as the scan does', () => {
    const deep = `{"traceEvents":[{"ph":"X"},${'{"a":'.repeat(70)}1${'}'.repeat(70)},{"ph":"X"}]}`;
    expect(() => split(deep, deep.length)).toThrow(TraceTooLarge);
    expect(() => split(deep, deep.length)).toThrow(/nests deeper than 64/);
    const ok = `{"traceEvents":[{"ph":"X"},${'{"a":'.repeat(63)}1${'}'.repeat(63)},{"ph":"X"}]}`;
    expect(split(ok, ok.length)).toHaveLength(3);
  });

  it('refuses an event longer than maxEventBytes inside a run', () => {
    const long = `{"traceEvents":[{"ph":"X"},{"name":"${'x'.repeat(5000)}"},{"ph":"X"}]}`;
    expect(() => split(long, long.length, { maxEventBytes: 1000, maxDepth: 64 })).toThrow(/traceEvents\[1\] is longer than 1000/);
  });

  it('names an event that is not an object, or not valid JSON, inside a run', () => {
    const notObject = '{"traceEvents":[{"ph":"X"},{"ph":"X"},[1],{"ph":"X"}]}';
    expect(() => split(notObject, notObject.length)).toThrow(/traceEvents\[2\] is not an object/);
    const broken = '{"traceEvents":[{"ph":"X"},{"ph":"X",},{"ph":"X"},{"ph":"X"}]}';
    expect(() => split(broken, broken.length)).toThrow(TraceFormatError);
  });
});
