import { Role } from './roles';

/**
 * Top-level shared types of the room document (one Y.Doc per room). This is a public contract,
 * documented in docs/room-document.md.
 *
 * - `annotations` Y.Map<Y.Map>: annotation id → the annotation's map, in the form `annotation-doc.ts`
 *   reads and writes (version 2: `a` the annotation as created, the later changes and each reply
 *   keys of their own; version 1, read only: every field its own key, `replies` a Y.Array<Y.Map>).
 * - `notes` Y.Text: the room's co-edited notes.
 * - `programs` Y.Map<Y.Text>: program texts that captures run, by name.
 * - `settings` Y.Map: `locked` (boolean), `allowAnnotatorCapture` (boolean), `title` (string),
 *   `version` (number, set by the server when it migrates the room).
 * - `presenter` Y.Map: `clientId` (number), `userId`, `name`, `color`, `since`; empty when nobody presents.
 * - `documents` Y.Map: document id → `DocumentMeta` JSON. Written by the server only.
 * - `captures` Y.Map: job id → capture job status JSON. Written by the server only.
 * - `drills` Y.Map: drill id → `DrillEntry` JSON (questions; answers and tally once revealed). Written by the server only.
 * - `hands` Y.Map: user id → the `raisedAt` of that person's hand the owner lowered. Owner only.
 * - `lab` Y.Map: `lab` the opened lab's steps and captures (`LabView`), `results` their checks for the room and per member (`LabResults`). Written by the server only.
 */
export const RoomKey = {
  annotations: 'annotations',
  notes: 'notes',
  programs: 'programs',
  settings: 'settings',
  presenter: 'presenter',
  documents: 'documents',
  captures: 'captures',
  hands: 'hands',
  drills: 'drills',
  lab: 'lab',
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
  hands: [Role.owner],
  drills: [],
  lab: [],
};

/** Keys an annotator may write while the room is locked: none. Owners may always write their keys. */
export function mayWrite(role: Role, key: string, locked: boolean): boolean {
  const writers = (WRITERS as Record<string, readonly Role[] | undefined>)[key];
  if (!writers || !writers.includes(role)) return false;
  return role === Role.owner || !locked;
}

/**
 * Keys of `settings`. `version` is the room-document version the server recorded when it migrated
 * the room's annotations (`ROOM_DOCUMENT_VERSION`); absent (version 1) in a room it never had to.
 */
export const SettingKey = { locked: 'locked', allowAnnotatorCapture: 'allowAnnotatorCapture', title: 'title', version: 'version' } as const;
