import type { Awareness } from 'y-protocols/awareness';

/**
 * Presence across a reconnect (a restarted server, or another instance after a failover). When its
 * socket closes, the stock provider drops the other participants' states but keeps their clocks;
 * on reconnecting the server sends those states again with the same clocks, which y-protocols
 * ignores, so they stayed invisible until each moved or renewed its state (every 15 s); and this
 * client's own state, sent again with the clock the others already hold, was ignored in turn
 * (yjs/y-websocket#122). Called when the socket opens, before the provider sends its state:
 * forgets the clocks of the participants it no longer shows, so that what the server sends is
 * taken, and advances its own clock, so that the state the provider sends is news everywhere.
 */
export function rejoinPresence(awareness: Awareness): void {
  for (const id of [...awareness.meta.keys()]) if (id !== awareness.clientID && !awareness.states.has(id)) awareness.meta.delete(id);
  const own = awareness.meta.get(awareness.clientID);
  if (own && awareness.getLocalState() !== null) awareness.meta.set(awareness.clientID, { clock: own.clock + 1, lastUpdated: Date.now() });
}
