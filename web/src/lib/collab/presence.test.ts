import { describe, expect, it } from 'vitest';
import { participants, readPresence, safeColor } from './presence';

const ada = { user: { id: 'a', name: 'Ada', color: '#112233' }, role: 'owner', docId: 'd1', dumpSel: { docId: 'd1', anchor: 3, head: 9 } };

describe('presence', () => {
  it('reads a well-formed state', () => {
    const p = readPresence(ada);
    expect(p?.role).toBe('owner');
    expect(p?.dumpSel).toEqual({ docId: 'd1', anchor: 3, head: 9 });
    expect(p?.view).toBeNull();
  });
  it('never trusts a remote state: bad colours, roles and shapes are neutralised', () => {
    const p = readPresence({ user: { name: '<img src=x onerror=alert(1)>', color: 'red;x:url(y)' }, role: 'admin', dumpSel: { docId: 1 } });
    expect(p?.user.color).toBe('#868e96');
    expect(p?.role).toBe('viewer');
    expect(p?.dumpSel).toBeNull();
    expect(readPresence({ user: 'x' })).toBeNull();
    expect(readPresence(null)).toBeNull();
    expect(safeColor('#ABCDEF')).toBe('#ABCDEF');
  });
  it('lists self first, then others by name, skipping states without a user', () => {
    const states = new Map<number, unknown>([
      [3, { ...ada, user: { id: 'c', name: 'Cy', color: '#000000' } }],
      [1, ada],
      [2, { ...ada, user: { id: 'b', name: 'Bo', color: '#000000' }, role: 'viewer' }],
      [4, {}],
    ]);
    expect(participants(states, 3).map((p) => [p.name, p.role, p.self])).toEqual([
      ['Cy', 'owner', true],
      ['Ada', 'owner', false],
      ['Bo', 'viewer', false],
    ]);
  });
});

describe("a presenter's trace ranges in presence", () => {
  const view = (trace: unknown) => readPresence({ ...ada, view: { docId: 't1', topLine: 1, anchor: 0, head: 0, trace } })?.view;

  it('reads the visible range and the selected one, on the trace clock', () => {
    expect(view({ fromUs: 1.7e15, toUs: 1.7e15 + 500, selection: { fromUs: 1.7e15 + 10, toUs: 1.7e15 + 20 } })?.trace).toEqual({ fromUs: 1.7e15, toUs: 1.7e15 + 500, selection: { fromUs: 1.7e15 + 10, toUs: 1.7e15 + 20 } });
    expect(view({ fromUs: 0, toUs: 5, selection: null })?.trace).toEqual({ fromUs: 0, toUs: 5, selection: null });
    expect(view(undefined)).toEqual({ docId: 't1', topLine: 1, anchor: 0, head: 0 });
  });

  it.each([
    ['an empty range', { fromUs: 5, toUs: 5 }],
    ['a reversed range', { fromUs: 9, toUs: 5 }],
    ['NaN', { fromUs: Number.NaN, toUs: 5 }],
    ['Infinity', { fromUs: 0, toUs: Number.POSITIVE_INFINITY }],
    ['a time past the bound', { fromUs: 0, toUs: 1e300 }],
    ['strings', { fromUs: '0', toUs: '5' }],
    ['a string', 'whole trace'],
  ])('drops %s and keeps the rest of the view', (_, trace) => {
    const v = view(trace);
    expect(v).toEqual({ docId: 't1', topLine: 1, anchor: 0, head: 0 });
  });

  it('drops a malformed selection but keeps the visible range', () => {
    expect(view({ fromUs: 0, toUs: 5, selection: { fromUs: 4, toUs: 1 } })?.trace).toEqual({ fromUs: 0, toUs: 5, selection: null });
    expect(view({ fromUs: 0, toUs: 5, selection: { fromUs: -1e300, toUs: 1 } })?.trace).toEqual({ fromUs: 0, toUs: 5, selection: null });
  });
});

describe("a presenter's split view in presence", () => {
  const view = (split: unknown) => readPresence({ ...ada, view: { docId: 'j', topLine: 4, anchor: 0, head: 0, split } })?.view;
  const plain = { docId: 'j', topLine: 4, anchor: 0, head: 0 };

  it('reads each pane, left to right, with its top line', () => {
    const panes = [{ docId: 'j', topLine: 4 }, { docId: 's', topLine: 120 }, { docId: 'h', topLine: 2.7 }];
    expect(view({ panes })?.split).toEqual({ panes: [{ docId: 'j', topLine: 4 }, { docId: 's', topLine: 120 }, { docId: 'h', topLine: 2 }] });
    expect(view(undefined)).toEqual(plain);
  });

  it.each([
    ['no panes', { panes: [] }],
    ['four panes', { panes: ['a', 'b', 'c', 'd'].map((docId) => ({ docId, topLine: 1 })) }],
    ['panes that are not a list', { panes: { 0: { docId: 'j', topLine: 1 }, length: 1 } }],
    ['a pane without a document', { panes: [{ docId: 'j', topLine: 1 }, { topLine: 1 }] }],
    ['an empty document id', { panes: [{ docId: '', topLine: 1 }] }],
    ['a document id of a megabyte', { panes: [{ docId: 'x'.repeat(1 << 20), topLine: 1 }] }],
    ['a numeric document id', { panes: [{ docId: 7, topLine: 1 }] }],
    ['line 0', { panes: [{ docId: 'j', topLine: 0 }] }],
    ['a negative line', { panes: [{ docId: 'j', topLine: -3 }] }],
    ['NaN', { panes: [{ docId: 'j', topLine: Number.NaN }] }],
    ['Infinity', { panes: [{ docId: 'j', topLine: Number.POSITIVE_INFINITY }] }],
    ['a line past the bound', { panes: [{ docId: 'j', topLine: 1e300 }] }],
    ['a line as a string', { panes: [{ docId: 'j', topLine: '5' }] }],
    ['a pane that is null', { panes: [null] }],
    ['a string', 'three panes'],
  ])('drops %s and keeps the rest of the view', (_, split) => {
    expect(view(split)).toEqual(plain);
  });
});

describe("a presenter's diff view in presence", () => {
  const view = (diff: unknown) => readPresence({ ...ada, view: { docId: 'a1', topLine: 1, anchor: 0, head: 0, diff } })?.view;
  const plain = { docId: 'a1', topLine: 1, anchor: 0, head: 0 };
  const ok = { a: 'a1', b: 'b1', topA: 12, topB: 30 };

  it('reads the two documents, each top line and the selected line', () => {
    expect(view(ok)?.diff).toEqual(ok);
    expect(view({ ...ok, selected: { side: 'b', line: 154 } })?.diff).toEqual({ ...ok, selected: { side: 'b', line: 154 } });
    expect(view(undefined)).toEqual(plain);
  });

  it.each([
    ['no second document', { a: 'a1', topA: 1, topB: 1 }],
    ['the same document twice', { ...ok, b: 'a1' }],
    ['an empty document id', { ...ok, a: '' }],
    ['a document id of a megabyte', { ...ok, b: 'x'.repeat(1 << 20) }],
    ['a numeric document id', { ...ok, a: 7 }],
    ['line 0', { ...ok, topA: 0 }],
    ['a fractional line', { ...ok, topB: 30.6 }],
    ['NaN', { ...ok, topB: Number.NaN }],
    ['a line past the bound', { ...ok, topA: 1e300 }],
    ['a line as a string', { ...ok, topB: '5' }],
    ['a selected line on neither side', { ...ok, selected: { side: 'c', line: 3 } }],
    ['a selected line 0', { ...ok, selected: { side: 'a', line: 0 } }],
    ['a list', [ok]],
    ['a string', 'a1 vs b1'],
  ])('drops %s and keeps the rest of the view', (_, diff) => {
    expect(view(diff)).toEqual(plain);
  });
});

describe('a raised hand, the cursor line and following in presence', () => {
  it('reads a hand, the line and following into the participant list', () => {
    const states = new Map<number, unknown>([[1, { ...ada, hand: { raisedAt: 1_764_000_000_000 }, line: 42.7, following: true }]]);
    const [p] = participants(states, 2);
    expect([p?.hand, p?.line, p?.following]).toEqual([{ raisedAt: 1_764_000_000_000 }, 42, true]);
  });

  it.each([
    ['a hand with a second key', { raisedAt: 5, by: 'someone' }],
    ['a hand time as a string', { raisedAt: '5' }],
    ['a negative hand time', { raisedAt: -5 }],
    ['a hand that is a word', 'up'],
  ])('takes %s as no hand, keeping the rest of the state', (_, hand) => {
    const p = readPresence({ ...ada, hand });
    expect(p?.hand).toBeNull();
    expect(p?.dumpSel).toEqual({ docId: 'd1', anchor: 3, head: 9 });
  });

  it('drops a line that is not a line, and anything but true as following', () => {
    for (const line of [0, -3, Number.NaN, 1e300, '12', null]) expect(readPresence({ ...ada, line })?.line, String(line)).toBeNull();
    for (const following of ['yes', 1, null, {}]) expect(readPresence({ ...ada, following })?.following).toBe(false);
  });
});
