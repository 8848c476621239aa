import { describe, expect, it } from 'vitest';
import { detectKind } from '@seam/shared/ir';
import { readableTrace } from './trace-text';

const TRACE = JSON.stringify({
  displayTimeUnit: 'ns',
  traceEvents: [
    { ph: 'M', pid: 701, name: 'process_name', args: { name: '/host:CPU' } },
    { ph: 'X', pid: 701, tid: 1, name: 'fusion.3', ts: 10.5, dur: 2, args: { long_name: 'fusion.3 = f32[8]{0} fusion(…), note "quoted"\nsecond line' } },
  ],
  metadata: { hosts: ['h'] },
});

describe('readableTrace', () => {
  it('puts each trace event on a line of its own and keeps the same JSON value', () => {
    const out = readableTrace(TRACE);
    expect(JSON.parse(out)).toEqual(JSON.parse(TRACE));
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe('{"displayTimeUnit": "ns", "metadata": {"hosts":["h"]}, "traceEvents": [');
    expect(lines[1]).toContain('"process_name"');
    expect(lines[2]).toContain('"fusion.3"');
    expect(lines[3]).toBe(']}');
    expect(detectKind(out)).toBe('trace');
  });

  it('returns other texts unchanged: not JSON, an array, no traceEvents array', () => {
    for (const t of ['not json {', '[{"ph":"X"}]', '{"traceEvents": 3}', '{"a": 1}', '']) expect(readableTrace(t)).toBe(t);
  });

  it('keeps an empty trace valid', () => {
    const out = readableTrace('{"traceEvents": []}');
    expect(JSON.parse(out)).toEqual({ traceEvents: [] });
  });
});
