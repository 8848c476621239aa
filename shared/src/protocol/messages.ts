/**
 * Message types on the sync socket. 0–3 are the y-websocket protocol (y-protocols sync and
 * awareness); 100 and up are Seam extensions, sent only to clients that opted in. See PROTOCOL.md.
 */
export const MessageType = {
  sync: 0,
  awareness: 1,
  auth: 2,
  queryAwareness: 3,
  /** Server → client, only with `?ack=1`: which of this connection's updates are durable. */
  ack: 100,
  /** Server → client, only with `?ack=1`: one of this connection's updates was refused, and why. */
  refused: 101,
} as const;
export type MessageType = (typeof MessageType)[keyof typeof MessageType];
