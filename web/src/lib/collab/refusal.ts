import { RefusalCode } from '@seam/shared/protocol';
import { annotationLabel, type UnsavedChange } from './unsaved';

/** Why a change was refused, in the words the room shows after "Your last change was refused: ". */
const REASONS: Readonly<Record<string, string>> = {
  [RefusalCode.locked]: 'the room is locked',
  [RefusalCode.viewer]: 'viewers cannot change the room',
  [RefusalCode.forbiddenKey]: 'your role may not change that part of the room',
  [RefusalCode.unknownParent]: 'it built on a change the server does not have',
  [RefusalCode.gap]: 'it built on a change the server does not have',
  [RefusalCode.clockOverlap]: 'it rewrote changes the server already has',
  [RefusalCode.clientTaken]: 'it was written under another writer’s identity (is this room open in another tab with another link?)',
};

/**
 * The sentence a person reads when the server refused their change, e.g. "Your last change was
 * refused: the room is locked". Reason codes this client does not know read like `gap`.
 */
export function refusalMessage(reason: string): string {
  return `Your last change was refused: ${REASONS[reason] ?? REASONS[RefusalCode.gap]}. The room was reloaded from the server.`;
}

/** What the list under the refusal is headed with, once it is known what the reload lost. */
export function unsavedHeading(unsaved: readonly UnsavedChange[]): string {
  if (unsaved.length === 0) return 'Nothing you wrote was lost.';
  return unsaved.length === 1 ? 'This was not saved:' : `These ${unsaved.length} changes were not saved:`;
}

/** One line of that list, e.g. `note on %neg: “written into the lock”` or `resolving the thread on %fusion.3`. */
export function unsavedLabel(c: UnsavedChange): string {
  switch (c.kind) {
    case 'annotation': {
      const n = c.annotation.replies.length;
      const replies = n === 0 ? '' : ` (with ${n === 1 ? 'its reply' : `its ${n} replies`})`;
      return `${c.annotation.kind} on ${annotationLabel(c.annotation)}: “${c.annotation.body}”${replies}`;
    }
    case 'reply':
      return `reply on ${c.on}: “${c.reply.body}”`;
    case 'edit':
      return `edit of ${c.replyId === undefined ? 'the comment' : 'a reply'} on ${c.on}: “${c.body}”`;
    case 'text':
    case 'other':
      return c.what;
  }
}
