import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { decodeMessage, encodeMessage } from './frames';
import { MessageType } from './messages';

/** One durable state-vector entry: every update of `clientID` below `clock` is on disk. */
export interface AckEntry {
  readonly clientID: number;
  readonly clock: number;
}

/**
 * The ack extension message (server → client, only for sockets opened with `?ack=1`).
 * `seq` counts this connection's update-bearing sync messages (step 2 and update) the server has
 * finished with; `entries` are the persisted clocks of the client IDs this connection authored.
 */
export interface Ack {
  readonly seq: number;
  readonly entries: readonly AckEntry[];
}

/** Writes a whole ack message, type byte included: `[100][seq][n][n × (clientID, clock)]`, all varUint. */
export function writeAck(encoder: encoding.Encoder, ack: Ack): void {
  encoding.writeVarUint(encoder, MessageType.ack);
  encoding.writeVarUint(encoder, ack.seq);
  encoding.writeVarUint(encoder, ack.entries.length);
  for (const e of ack.entries) {
    encoding.writeVarUint(encoder, e.clientID);
    encoding.writeVarUint(encoder, e.clock);
  }
}

/** Encodes an ack message into a fresh buffer. */
export function encodeAck(ack: Ack): Uint8Array {
  return encodeMessage(writeAck, ack);
}

/**
 * Reads the body of an ack message, after its type byte has been read. Throws on truncated or
 * malformed input (the caller owns the socket and decides what to do).
 */
export function readAck(decoder: decoding.Decoder): Ack {
  const seq = decoding.readVarUint(decoder);
  const n = decoding.readVarUint(decoder);
  if (n > decoder.arr.length - decoder.pos) throw new RangeError('ack: entry count exceeds message length');
  const entries: AckEntry[] = [];
  for (let i = 0; i < n; i++) {
    entries.push({ clientID: decoding.readVarUint(decoder), clock: decoding.readVarUint(decoder) });
  }
  return { seq, entries };
}

/** Decodes a whole message; `undefined` when it is not an ack. */
export function decodeAck(message: Uint8Array): Ack | undefined {
  return decodeMessage(message, MessageType.ack, readAck);
}
