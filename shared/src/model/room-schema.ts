import { Role } from './roles';

/**
 * Top-level shared types of the room document (one Y.Doc per room). This is a public contract,
 * documented in docs/room-document.md.
 *
 * - `annotations` Y.Map<Y.Map>: annotation id → fields of `Annotation`, `replies` a Y.Array<Y.Map>.
 * - `notes` Y.Text: the room's co-edited notes.
 * - `programs` Y.Map<Y.Text>: program texts that captures run, by name.
 * - `settings` Y.Map: `locked` (boolean), `allowAnnotatorCapture` (boolean), `title` (string).
 * - `presenter` Y.Map: `clientId` (number), `userId`, `name`, `color`, `since`; empty when nobody presents.
 * - `documents` Y.Map: document id → `DocumentMeta` JSON. Written by the server only.
 * - `captures` Y.Map: job id → capture job status JSON. Written by the server only.
 */
export const RoomKey = {
  annotations: 'annotations',
  notes: 'notes',
  programs: 'programs',
  settings: 'settings',
  presenter: 'presenter',
  documents: 'documents',
  captures: 'captures',
} as const;
export type RoomKey = (typeof RoomKey)[keyof typeof RoomKey];

/** Which roles may write each top-level key. Keys absent here, and unknown keys, are written by no client. */
export const WRITERS: Readonly<Record<RoomKey, readonly Role[]>> = {
  annotations: [Role.owner, Role.annotator],
  notes: [Role.owner, Role.annotator],
  programs: [Role.owner, Role.annotator],
  settings: [Role.owner],
  presenter: [Role.owner],
  documents: [],
  captures: [],
};

/** Keys an annotator may write while the room is locked: none. Owners may always write their keys. */
export function mayWrite(role: Role, key: string, locked: boolean): boolean {
  const writers = (WRITERS as Record<string, readonly Role[] | undefined>)[key];
  if (!writers || !writers.includes(role)) return false;
  return role === Role.owner || !locked;
}

export const SettingKey = { locked: 'locked', allowAnnotatorCapture: 'allowAnnotatorCapture', title: 'title' } as const;
