/**
 * WebSocket close codes the sync server uses. 1009 is the standard "message too big";
 * the 4xxx codes are Seam's own. The reason string repeats the name.
 */
export const CloseCode = {
  goingAway: 1001,
  messageTooBig: 1009,
  unauthorized: 4001,
  tokenRevoked: 4003,
  roomNotFound: 4004,
  rateLimited: 4008,
  roomFull: 4009,
  roomTooLarge: 4013,
  malformedMessage: 4400,
  serverError: 4500,
} as const;
export type CloseCode = (typeof CloseCode)[keyof typeof CloseCode];

export const CLOSE_REASONS: Readonly<Record<CloseCode, string>> = {
  1001: 'going-away',
  1009: 'message-too-big',
  4001: 'unauthorized',
  4003: 'token-revoked',
  4004: 'room-not-found',
  4008: 'rate-limited',
  4009: 'room-full',
  4013: 'room-too-large',
  4400: 'malformed-message',
  4500: 'server-error',
};
