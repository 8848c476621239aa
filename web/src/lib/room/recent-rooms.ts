import type { Role } from '@seam/shared/model';

/** A room this browser has opened, remembered for the lobby. */
export interface RecentRoom {
  readonly id: string;
  readonly title: string;
  readonly role: Role;
  readonly token: string;
  readonly openedAt: number;
}

const KEY = 'seam.recentRooms';
/** How many rooms the lobby remembers. */
export const MAX_RECENT = 12;

/** Reads the remembered rooms, newest first; damaged storage reads as none. */
export function loadRecent(storage: Pick<Storage, 'getItem'>): RecentRoom[] {
  try {
    const v: unknown = JSON.parse(storage.getItem(KEY) ?? '[]');
    if (!Array.isArray(v)) return [];
    return v.filter(
      (r): r is RecentRoom =>
        typeof r === 'object' && r !== null && typeof r.id === 'string' && typeof r.title === 'string' && typeof r.token === 'string',
    );
  } catch {
    return [];
  }
}

/** Remembers a room (moving it to the front) and returns the new list. */
export function rememberRoom(storage: Pick<Storage, 'getItem' | 'setItem'>, room: RecentRoom): RecentRoom[] {
  const list = [room, ...loadRecent(storage).filter((r) => r.id !== room.id)].slice(0, MAX_RECENT);
  storage.setItem(KEY, JSON.stringify(list));
  return list;
}
