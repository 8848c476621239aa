import type * as Y from 'yjs';
import { Role, RoomKey, SettingKey } from '@seam/shared/model';
import { roomLocked } from './errors';
import type { Rooms } from './sync/rooms';

/** Whether the owner has locked the room (`settings.locked`). */
export function isLocked(doc: Y.Doc): boolean {
  return doc.getMap(RoomKey.settings).get(SettingKey.locked) === true;
}

/**
 * The lock check every REST write path makes (documents, annotations, captures): while the room is
 * locked, anyone but its owner gets `room_locked` (403). Role checks come first and stay separate.
 */
export function assertUnlocked(rooms: Pick<Rooms, 'get'>, roomId: string, role: Role): void {
  if (role !== Role.owner && isLocked(rooms.get(roomId).doc)) throw roomLocked();
}
