/**
 * Who may create rooms. `open`: anyone who reaches the server (the creator becomes the owner, and
 * the owner may capture, so this means anyone may run code through the runners). `invite`: only a
 * request carrying an invitation or the operator token.
 */
export const RoomCreation = { open: 'open', invite: 'invite' } as const;
export type RoomCreation = (typeof RoomCreation)[keyof typeof RoomCreation];

/** Whether `host` (the address the server listens on) is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (h.startsWith('::ffff:')) return isLoopbackHost(h.slice('::ffff:'.length));
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** The policy when none is configured: `open` on loopback, `invite` on any other address. */
export function defaultRoomCreation(host: string): RoomCreation {
  return isLoopbackHost(host) ? RoomCreation.open : RoomCreation.invite;
}

/** Why `mode` may not be used on `host`, or null when it may: `open` is for loopback only. */
export function roomCreationProblem(mode: RoomCreation, host: string): string | null {
  if (mode === RoomCreation.open && !isLoopbackHost(host)) {
    return `SEAM_ROOM_CREATION=open is refused on HOST=${host}: on an address other machines can reach, anyone could create a room and run code on this host. Use SEAM_ROOM_CREATION=invite (the default there) and mint invitations with \`npm run -w @seam/server invite -- create\`, or listen on 127.0.0.1.`;
  }
  return null;
}
