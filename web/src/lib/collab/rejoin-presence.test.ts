import * as Y from 'yjs';
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate, removeAwarenessStates } from 'y-protocols/awareness';
import { describe, expect, it } from 'vitest';
import { rejoinPresence } from './rejoin-presence';

/** A participant's awareness with a name set, as the room sets it. */
function person(name: string): Awareness {
  const a = new Awareness(new Y.Doc());
  a.setLocalState({ user: { name } });
  return a;
}

/** What `from` sends of `ids` (its own state, or what it relays), applied by `to`. */
const send = (from: Awareness, to: Awareness, ids: number[] = [from.clientID]) => applyAwarenessUpdate(to, encodeAwarenessUpdate(from, ids), 'remote');

describe('rejoinPresence', () => {
  it("lets a reconnected client take the others' unchanged states again, and its own unchanged state be news to them", () => {
    const ada = person('Ada');
    const bo = person('Bo');
    const server = new Awareness(new Y.Doc());
    send(ada, server);
    send(bo, server);
    send(server, bo, [ada.clientID]);
    send(server, ada, [bo.clientID]);
    expect(bo.getStates().has(ada.clientID)).toBe(true);
    // Bo's socket closes: the provider drops the others' states (keeping their clocks), the server drops Bo's.
    removeAwarenessStates(bo, [ada.clientID], 'close');
    removeAwarenessStates(server, [bo.clientID], null);
    send(server, ada, [bo.clientID]);
    expect(ada.getStates().has(bo.clientID)).toBe(false);

    // Without it, what the server sends again and what Bo sends again are old news.
    send(server, bo, [ada.clientID]);
    send(bo, server);
    expect(bo.getStates().has(ada.clientID)).toBe(false);
    expect(server.getStates().has(bo.clientID)).toBe(false);
    rejoinPresence(bo);
    send(server, bo, [ada.clientID]);
    send(bo, server);
    send(server, ada, [bo.clientID]);
    expect(bo.getStates().get(ada.clientID)).toEqual({ user: { name: 'Ada' } });
    expect(ada.getStates().get(bo.clientID)).toEqual({ user: { name: 'Bo' } });
  });

  it('leaves the states still shown and a client without a state as they are', () => {
    const ada = person('Ada');
    const bo = person('Bo');
    send(ada, bo);
    const clock = bo.meta.get(ada.clientID)!.clock;
    rejoinPresence(bo);
    expect(bo.meta.get(ada.clientID)!.clock).toBe(clock);
    const gone = new Awareness(new Y.Doc());
    gone.setLocalState(null);
    const own = gone.meta.get(gone.clientID)!.clock;
    rejoinPresence(gone);
    expect(gone.meta.get(gone.clientID)!.clock).toBe(own);
  });
});
