/** The person at this browser: chosen on first visit, kept locally, no password. */
export interface Identity {
  readonly id: string;
  readonly name: string;
  readonly color: string;
}

/** Colours offered for people, readable on light and dark backgrounds. */
export const PERSON_COLORS: readonly string[] = [
  '#d9480f', '#2b8a3e', '#1971c2', '#ae3ec9', '#e8590c', '#0c8599', '#c2255c', '#5f3dc4', '#66a80f', '#f08c00',
];

const KEY = 'seam.identity';
const MAX_NAME = 40;

/** Trims a display name and bounds its length; empty names become null. */
export function cleanName(name: string): string | null {
  const t = name.replace(/\s+/g, ' ').trim().slice(0, MAX_NAME);
  return t.length > 0 ? t : null;
}

/** Reads the stored identity, or null when none (or a damaged one) is stored. */
export function loadIdentity(storage: Pick<Storage, 'getItem'>): Identity | null {
  const raw = storage.getItem(KEY);
  if (!raw) return null;
  try {
    const v: unknown = JSON.parse(raw);
    if (typeof v !== 'object' || v === null) return null;
    const { id, name, color } = v as Record<string, unknown>;
    if (typeof id !== 'string' || typeof name !== 'string' || typeof color !== 'string') return null;
    const clean = cleanName(name);
    if (!clean || !/^#[0-9a-f]{6}$/i.test(color)) return null;
    return { id, name: clean, color };
  } catch {
    return null;
  }
}

/** Stores an identity. */
export function saveIdentity(storage: Pick<Storage, 'setItem'>, identity: Identity): void {
  storage.setItem(KEY, JSON.stringify(identity));
}

/** A fresh identity id (random, not secret). */
export function newIdentityId(random: () => number = Math.random): string {
  return Array.from({ length: 16 }, () => Math.floor(random() * 36).toString(36)).join('');
}

/** The colour a new person gets by default: one of the palette, picked at random. */
export function pickColor(random: () => number = Math.random): string {
  return PERSON_COLORS[Math.floor(random() * PERSON_COLORS.length)] ?? '#1971c2';
}

/** Initials for a coloured avatar, e.g. "Ada Lovelace" → "AL". */
export function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const chars = parts.length > 1 ? [parts[0]?.[0], parts[parts.length - 1]?.[0]] : [parts[0]?.[0], parts[0]?.[1]];
  return chars.filter(Boolean).join('').toUpperCase() || '?';
}
