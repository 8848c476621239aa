import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import type { Annotation } from './annotation';
import { addAnnotation, annotationsMap, annotationToYMap, readAnnotation, readAnnotations } from './annotation-doc';
import { MAX_TRACE_NAME, MAX_TRACE_US, readTraceAnchor, traceAnchorLabel, TraceAnchorSchema } from './annotation-trace';
import { CreateAnnotationBody } from './api';

const author = { id: 'u1', name: 'Ada', color: '#c0ffee' };
const onTrace = (id: string, trace: Annotation['trace']): Annotation => ({
  id, docId: 't1', from: 0, to: 0, quote: { prefix: '', exact: '', suffix: '' }, kind: 'note', body: 'slow here', author, createdAt: 1, resolved: false, replies: [], trace,
});

describe('trace anchors', () => {
  it('accepts an op and a time range, with or without a track, and drops unknown fields', () => {
    expect(readTraceAnchor({ type: 'op', op: 'convert_exponential_fusion', module: 'jit_attention' })).toEqual({ type: 'op', op: 'convert_exponential_fusion', module: 'jit_attention' });
    expect(readTraceAnchor({ type: 'range', fromUs: 12_300, toUs: 15_000 })).toEqual({ type: 'range', fromUs: 12_300, toUs: 15_000 });
    expect(readTraceAnchor({ type: 'range', fromUs: 0, toUs: 0.5, track: '/host:CPU · XLA Ops', extra: '<script>' })).toEqual({ type: 'range', fromUs: 0, toUs: 0.5, track: '/host:CPU · XLA Ops' });
  });

  it.each([
    ['no type', { op: 'x', module: 'm' }],
    ['an unknown type', { type: 'line', op: 'x', module: 'm' }],
    ['an empty op', { type: 'op', op: '', module: 'm' }],
    ['an op name past the limit', { type: 'op', op: 'x'.repeat(MAX_TRACE_NAME + 1), module: 'm' }],
    ['a module that is not a string', { type: 'op', op: 'x', module: 7 }],
    ['from after to', { type: 'range', fromUs: 5, toUs: 2 }],
    ['a negative time', { type: 'range', fromUs: -1, toUs: 2 }],
    ['NaN', { type: 'range', fromUs: Number.NaN, toUs: 2 }],
    ['Infinity', { type: 'range', fromUs: 0, toUs: Number.POSITIVE_INFINITY }],
    ['a time past a year', { type: 'range', fromUs: 0, toUs: MAX_TRACE_US + 1 }],
    ['a time as a string', { type: 'range', fromUs: '0', toUs: 2 }],
    ['an empty track', { type: 'range', fromUs: 0, toUs: 2, track: '' }],
    ['a track past the limit', { type: 'range', fromUs: 0, toUs: 2, track: 't'.repeat(MAX_TRACE_NAME + 1) }],
    ['null', null],
    ['an array', [1, 2]],
  ])('rejects %s', (_, v) => {
    expect(readTraceAnchor(v)).toBeUndefined();
    expect(TraceAnchorSchema.safeParse(v).success).toBe(false);
  });

  it('labels ops by name and ranges in the unit the span needs', () => {
    expect(traceAnchorLabel({ type: 'op', op: 'convert_exponential_fusion', module: 'm' })).toBe('op convert_exponential_fusion');
    expect(traceAnchorLabel({ type: 'range', fromUs: 12_300, toUs: 15_000 })).toBe('12.3–15.0 ms');
    expect(traceAnchorLabel({ type: 'range', fromUs: 2, toUs: 40.25 })).toBe('2.0–40.3 µs');
    expect(traceAnchorLabel({ type: 'range', fromUs: 1e6, toUs: 2.5e6, track: 'XLA Ops' })).toBe('1.0–2.5 s on XLA Ops');
  });
});

describe('trace anchors in the room document', () => {
  it('round-trips an op and a range annotation through another replica', () => {
    const a = new Y.Doc();
    const op = onTrace('a', { type: 'op', op: 'fusion.3', module: 'jit_f' });
    const range = onTrace('b', { type: 'range', fromUs: 10, toUs: 20, track: 'XLA Ops' });
    addAnnotation(a, op);
    addAnnotation(a, range);
    const b = new Y.Doc();
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a));
    expect(readAnnotations(b)).toEqual([op, range]);
  });

  it('distrusts an annotation whose trace anchor is malformed, and keeps one without any', () => {
    const doc = new Y.Doc();
    const plain = onTrace('p', undefined);
    const { trace: _, ...withoutTrace } = plain;
    addAnnotation(doc, withoutTrace);
    for (const [id, bad] of [['x', { type: 'range', fromUs: 9, toUs: 1 }], ['y', 'op fusion'], ['z', { type: 'op', op: 'f', module: ['m'] }]] as const) {
      const m = annotationToYMap(onTrace(id, undefined));
      doc.transact(() => annotationsMap(doc).set(id, m));
      m.set('a', JSON.stringify({ ...(JSON.parse(m.get('a') as string) as object), trace: bad }));
      expect(readAnnotation(annotationsMap(doc).get(id))).toBeUndefined();
    }
    expect(readAnnotations(doc).map((a) => a.id)).toEqual(['p']);
  });

  it('is what the REST body accepts: with from and to 0, bounded', () => {
    const base = { docId: 't1', from: 0, to: 0, kind: 'note', body: '' };
    expect(CreateAnnotationBody.safeParse({ ...base, trace: { type: 'range', fromUs: 1, toUs: 2 } }).success).toBe(true);
    expect(CreateAnnotationBody.safeParse({ ...base, trace: { type: 'op', op: 'dot', module: 'm' } }).success).toBe(true);
    expect(CreateAnnotationBody.safeParse({ ...base, to: 4, trace: { type: 'op', op: 'dot', module: 'm' } }).success).toBe(false);
    expect(CreateAnnotationBody.safeParse({ ...base, trace: { type: 'range', fromUs: 1, toUs: 1e300 } }).success).toBe(false);
    expect(CreateAnnotationBody.safeParse(base).success).toBe(true);
  });
});
