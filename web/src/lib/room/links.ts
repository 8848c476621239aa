import type { Role } from '@seam/shared/model';
import { roomHref } from './route';

/** The role tokens of a room, as far as this browser knows them (the owner learns all three at creation). */
export type KnownLinks = Partial<Record<Role, string>>;

const key = (roomId: string) => `seam.links.${roomId}`;

/** Reads the tokens this browser knows for a room. */
export function loadLinks(storage: Pick<Storage, 'getItem'>, roomId: string): KnownLinks {
  try {
    const v: unknown = JSON.parse(storage.getItem(key(roomId)) ?? '{}');
    if (typeof v !== 'object' || v === null) return {};
    const out: KnownLinks = {};
    for (const r of ['owner', 'annotator', 'viewer'] as const) {
      const t = (v as Record<string, unknown>)[r];
      if (typeof t === 'string') out[r] = t;
    }
    return out;
  } catch {
    return {};
  }
}

/** Stores tokens for a room, merged over what is known. */
export function saveLinks(storage: Pick<Storage, 'getItem' | 'setItem'>, roomId: string, tokens: KnownLinks): KnownLinks {
  const next = { ...loadLinks(storage, roomId), ...tokens };
  storage.setItem(key(roomId), JSON.stringify(next));
  return next;
}

/** The full link for a role token. */
export function linkFor(origin: string, roomId: string, token: string): string {
  return `${origin}${roomHref(roomId, token)}`;
}
