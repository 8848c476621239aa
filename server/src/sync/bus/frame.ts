import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';

/**
 * What travels on a room's bus channel. `update`: a Yjs update already committed to the shared
 * log; `awareness`: a y-protocols awareness update (never stored); `resync`: the sender may have
 * failed to publish something (its connection to the bus was down), so receivers reload the room
 * from the log; `closeToken`: a role token of the room was rotated, and every holder closes the
 * sockets that authenticated with it (data: the old token's SHA-256, 32 bytes); `query`: the
 * sender has just loaded the room, and every holder answers with the awareness states of its own
 * sockets (data: empty).
 */
export const BusKind = { update: 0, awareness: 1, resync: 2, closeToken: 3, query: 4 } as const;
export type BusKind = (typeof BusKind)[keyof typeof BusKind];

/** One message of a room's channel: what, from which instance, and its bytes. */
export interface BusFrame {
  readonly kind: BusKind;
  /** The publishing instance's id (an instance ignores its own messages). */
  readonly origin: string;
  readonly data: Uint8Array;
}

/** A bus message that is not a frame of this format (from a foreign or hostile publisher). */
export class BusFrameError extends Error {
  override readonly name = 'BusFrameError';
}

/** Format version, first byte of every frame. */
const VERSION = 1;
/** An instance id is at most this long (they are 16 random characters). */
const MAX_ORIGIN = 64;

/** Frame bytes: version (1 byte), kind (varuint), origin (varstring), data (varUint8Array). */
export function writeFrame(frame: BusFrame): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeUint8(e, VERSION);
  encoding.writeVarUint(e, frame.kind);
  encoding.writeVarString(e, frame.origin);
  encoding.writeVarUint8Array(e, frame.data);
  return encoding.toUint8Array(e);
}

/** Reads a frame; throws `BusFrameError` for anything else (wrong version or kind, truncated, trailing bytes). */
export function readFrame(bytes: Uint8Array): BusFrame {
  const d = decoding.createDecoder(bytes);
  try {
    const version = decoding.readUint8(d);
    if (version !== VERSION) throw new BusFrameError(`bus frame version ${version}, expected ${VERSION}`);
    const kind = decoding.readVarUint(d);
    if (!Object.values(BusKind).includes(kind as BusKind)) throw new BusFrameError(`unknown bus frame kind ${kind}`);
    const origin = decoding.readVarString(d);
    if (origin.length === 0 || origin.length > MAX_ORIGIN) throw new BusFrameError('bus frame origin must be 1–64 characters');
    const data = decoding.readVarUint8Array(d);
    if (decoding.hasContent(d)) throw new BusFrameError('bus frame has trailing bytes');
    return { kind: kind as BusKind, origin, data };
  } catch (err) {
    if (err instanceof BusFrameError) throw err;
    throw new BusFrameError(`truncated bus frame: ${err instanceof Error ? err.message : String(err)}`);
  }
}
