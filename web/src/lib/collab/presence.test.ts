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
