import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { decodeMessage, encodeMessage } from './frames';
import { MessageType } from './messages';

/**
 * Why the server refused an update (the refused message's reason, and the `reason` label of
 * `seam_updates_refused_total`). Clients must treat a code they do not know like `gap`.
 */
export const RefusalCode = {
  /** The socket's role is viewer: it may not write at all. */
  viewer: 'viewer',
  /** The room is locked: only the owner may write until it is unlocked. */
  locked: 'locked',
  /** The update touches a top-level key the role may never write (e.g. `settings` as annotator). */
  forbiddenKey: 'forbidden-key',
  /** The update builds on content the server cannot find. */
  unknownParent: 'unknown-parent',
  /** The update depends on structs the server lacks, typically after an earlier refusal. */
  gap: 'gap',
  /** A struct starts below the clock the server holds for its client ID and runs past it. */
  clockOverlap: 'clock-overlap',
  /**
   * The update writes with a client ID that is not this socket's to use: the server's, another
   * live socket's (one with another token), or one that has written keys this role may not write.
   */
  clientTaken: 'client-taken',
} as const;
export type RefusalCode = (typeof RefusalCode)[keyof typeof RefusalCode];

/**
 * The refused extension message (server → client, only for sockets opened with `?ack=1`), sent once
 * per refused update. The client's replica still holds the refused change, and every later update
 * of its client ID will be refused as a `gap`: on receiving it, a client should drop its replica
 * and resync from the server.
 */
export interface Refused {
  /** A {@link RefusalCode}, or a newer code this client does not know. */
  readonly reason: string;
}

/** Writes a whole refused message, type byte included: `[101][varString reason]`. */
export function writeRefused(encoder: encoding.Encoder, refused: Refused): void {
  encoding.writeVarUint(encoder, MessageType.refused);
  encoding.writeVarString(encoder, refused.reason);
}

/** Encodes a refused message into a fresh buffer. */
export function encodeRefused(refused: Refused): Uint8Array {
  return encodeMessage(writeRefused, refused);
}

/** Reads the body of a refused message, after its type byte. Throws on truncated input. */
export function readRefused(decoder: decoding.Decoder): Refused {
  return { reason: decoding.readVarString(decoder) };
}

/** Decodes a whole message; `undefined` when it is not a refused message. */
export function decodeRefused(message: Uint8Array): Refused | undefined {
  return decodeMessage(message, MessageType.refused, readRefused);
}
