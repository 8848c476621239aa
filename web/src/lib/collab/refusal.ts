import { RefusalCode } from '@seam/shared/protocol';

/** Why a change was refused, in the words the room shows after "Your last change was refused: ". */
const REASONS: Readonly<Record<string, string>> = {
  [RefusalCode.locked]: 'the room is locked',
  [RefusalCode.viewer]: 'viewers cannot change the room',
  [RefusalCode.forbiddenKey]: 'your role may not change that part of the room',
  [RefusalCode.unknownParent]: 'it built on a change the server does not have',
  [RefusalCode.gap]: 'it built on a change the server does not have',
};

/**
 * The sentence a person reads when the server refused their change, e.g. "Your last change was
 * refused: the room is locked". Reason codes this client does not know read like `gap`.
 */
export function refusalMessage(reason: string): string {
  return `Your last change was refused: ${REASONS[reason] ?? REASONS[RefusalCode.gap]}. The room was reloaded from the server.`;
}
