import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { MessageType } from './messages';

/** Encodes one whole message into a fresh buffer with its `writeX` function (type byte included). */
export function encodeMessage<T>(write: (encoder: encoding.Encoder, value: T) => void, value: T): Uint8Array {
  const encoder = encoding.createEncoder();
  write(encoder, value);
  return encoding.toUint8Array(encoder);
}

/**
 * Decodes one whole message with its `readX` function; `undefined` when its type byte is not
 * `type`. What `read` throws on malformed input passes through.
 */
export function decodeMessage<T>(message: Uint8Array, type: MessageType, read: (decoder: decoding.Decoder) => T): T | undefined {
  const decoder = decoding.createDecoder(message);
  if (decoding.readVarUint(decoder) !== type) return undefined;
  return read(decoder);
}

/** A y-websocket sync message, `[0][varUint sub][bytes payload]` (sub 0 step 1, 1 step 2, 2 update). */
export function encodeSyncMessage(sub: number, payload: Uint8Array): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, MessageType.sync);
  encoding.writeVarUint(e, sub);
  encoding.writeVarUint8Array(e, payload);
  return encoding.toUint8Array(e);
}

/** A y-websocket awareness message, `[1][bytes update]`, around a y-protocols awareness update. */
export function encodeAwarenessMessage(update: Uint8Array): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, MessageType.awareness);
  encoding.writeVarUint8Array(e, update);
  return encoding.toUint8Array(e);
}
