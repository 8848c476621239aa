import type * as Y from 'yjs';
import { RoomKey, SettingKey } from '@seam/shared/model';

/**
 * The room's current title: the owner renames a room by writing `settings.title` in the room
 * document, so that value wins; `created` (the title the room was created with) stands in when the
 * document has none.
 */
export function roomTitle(doc: Y.Doc, created: string): string {
  const renamed = doc.getMap(RoomKey.settings).get(SettingKey.title);
  return typeof renamed === 'string' && renamed.trim() ? renamed : created;
}
