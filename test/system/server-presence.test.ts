import * as encoding from 'lib0/encoding';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAwarenessMessage } from '@seam/shared/protocol';
import { connectClient, createRoom, rawSocket, startTestServer, waitFor, type CreatedRoom, type RawSocket, type TestClient, type TestServer } from '../helpers';

/** An awareness frame: `[1][bytes update]`, the update holding `[n] n × (clientID, clock, json)`. */
function awarenessFrame(...entries: [clientID: number, clock: number, state: unknown][]): Uint8Array {
  const u = encoding.createEncoder();
  encoding.writeVarUint(u, entries.length);
  for (const [clientID, clock, state] of entries) {
    encoding.writeVarUint(u, clientID);
    encoding.writeVarUint(u, clock);
    encoding.writeVarString(u, JSON.stringify(state));
  }
  return encodeAwarenessMessage(encoding.toUint8Array(u));
}

const ANN = 1111;
const MALLORY = 2222;
const EVE = 3333;

let s: TestServer;
let room: CreatedRoom;
let observer: TestClient;
const sockets: RawSocket[] = [];

async function open(token: string): Promise<RawSocket> {
  const r = rawSocket(s, room.id, `token=${token}`);
  sockets.push(r);
  await r.opened();
  return r;
}

/** The name in the observer's copy of `clientID`'s state, or undefined when it has none. */
const nameOf = (clientID: number): string | undefined =>
  (observer.provider.awareness.getStates().get(clientID) as { name?: string } | undefined)?.name;

async function droppedCount(): Promise<number> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  return Number(/^seam_awareness_entries_dropped_total (\d+)/m.exec(text)?.[1]);
}

beforeAll(async () => {
  s = await startTestServer();
  room = await createRoom(s);
  observer = connectClient(s, room.id, room.tokens.viewer);
  await observer.synced();
});
afterAll(async () => {
  observer.destroy();
  for (const r of sockets) r.ws.terminate();
  await s.close();
});

describe('presence belongs to the socket that introduced it', () => {
  it('drops entries for a client ID another live socket claimed, and keeps the spoofer\'s own', async () => {
    const dropped = await droppedCount();
    const ann = await open(room.tokens.annotator);
    ann.ws.send(awarenessFrame([ANN, 1, { name: 'Ann' }]));
    await waitFor(() => nameOf(ANN) === 'Ann', 'Ann to be present');

    const mallory = await open(room.tokens.annotator);
    mallory.ws.send(awarenessFrame([MALLORY, 1, { name: 'Mallory' }]));
    mallory.ws.send(awarenessFrame([ANN, 5, { name: 'Ann (spoofed)' }]));
    mallory.ws.send(awarenessFrame([ANN, 6, null]));
    mallory.ws.send(awarenessFrame([MALLORY, 2, { name: 'Mallory, done' }], [ANN, 7, { name: 'Ann, spoofed again' }]));
    // Frames of one socket are handled in order: once the last one's own entry arrived, all were handled.
    await waitFor(() => nameOf(MALLORY) === 'Mallory, done', 'Mallory\'s last update');
    expect(nameOf(ANN)).toBe('Ann');
    expect(await droppedCount()).toBe(dropped + 3);

    // Ann herself can still change and remove her state.
    ann.ws.send(awarenessFrame([ANN, 2, { name: 'Ann, renamed' }]));
    await waitFor(() => nameOf(ANN) === 'Ann, renamed', 'Ann\'s own change');
    ann.ws.send(awarenessFrame([ANN, 3, null]));
    await waitFor(() => !observer.provider.awareness.getStates().has(ANN), 'Ann\'s own removal');
    // Removing her state does not release her claim while her socket lives.
    mallory.ws.send(awarenessFrame([ANN, 9, { name: 'Ann, taken over' }], [MALLORY, 3, { name: 'Mallory, again' }]));
    await waitFor(() => nameOf(MALLORY) === 'Mallory, again', 'Mallory\'s third update');
    expect(observer.provider.awareness.getStates().has(ANN)).toBe(false);
  });

  it('removes a socket\'s states when it closes, and frees its client IDs for a new socket', async () => {
    const eve = await open(room.tokens.viewer);
    eve.ws.send(awarenessFrame([EVE, 1, { name: 'Eve' }]));
    await waitFor(() => nameOf(EVE) === 'Eve', 'Eve to be present');
    // A socket whose very first update names a claimed ID gets nothing.
    const intruder = await open(room.tokens.owner);
    intruder.ws.send(awarenessFrame([EVE, 4, { name: 'not Eve' }]));
    intruder.ws.send(awarenessFrame([4444, 1, { name: 'Intruder' }]));
    await waitFor(() => nameOf(4444) === 'Intruder', 'the intruder\'s own state');
    expect(nameOf(EVE)).toBe('Eve');

    eve.ws.close();
    await eve.closed;
    await waitFor(() => !observer.provider.awareness.getStates().has(EVE), 'Eve\'s state to be removed');
    // The stock observer echoes Eve's removal back to the server; that echo must not take her ID.
    const back = await open(room.tokens.viewer);
    back.ws.send(awarenessFrame([EVE, 5, { name: 'Eve, reconnected' }]));
    await waitFor(() => nameOf(EVE) === 'Eve, reconnected', 'Eve to be back under a new socket');
  });
});
