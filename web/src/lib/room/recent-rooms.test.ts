import { describe, expect, it } from 'vitest';
import { loadRecent, MAX_RECENT, rememberRoom } from './recent-rooms';
import { loadLinks, saveLinks } from './links';

function memory(): Pick<Storage, 'getItem' | 'setItem'> {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v) };
}

describe('recent rooms', () => {
  it('moves a reopened room to the front without duplicating it', () => {
    const s = memory();
    rememberRoom(s, { id: 'a', title: 'A', role: 'owner', token: 't', openedAt: 1 });
    rememberRoom(s, { id: 'b', title: 'B', role: 'viewer', token: 'u', openedAt: 2 });
    const list = rememberRoom(s, { id: 'a', title: 'A2', role: 'owner', token: 't', openedAt: 3 });
    expect(list.map((r) => r.id)).toEqual(['a', 'b']);
    expect(loadRecent(s)[0]?.title).toBe('A2');
  });
  it('keeps at most MAX_RECENT rooms', () => {
    const s = memory();
    for (let i = 0; i < MAX_RECENT + 5; i++) rememberRoom(s, { id: `r${i}`, title: 't', role: 'owner', token: 'x', openedAt: i });
    expect(loadRecent(s)).toHaveLength(MAX_RECENT);
  });
  it('merges rotated tokens into the known links', () => {
    const s = memory();
    saveLinks(s, 'r', { owner: 'o', annotator: 'a', viewer: 'v' });
    saveLinks(s, 'r', { viewer: 'v2' });
    expect(loadLinks(s, 'r')).toEqual({ owner: 'o', annotator: 'a', viewer: 'v2' });
  });
});
