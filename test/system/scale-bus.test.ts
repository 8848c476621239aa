import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { BusFrameError, BusKind, type BusFrame } from '../../server/src/sync/bus/frame';
import { LocalBusHub, LocalRoomBus } from '../../server/src/sync/bus/local-bus';
import { RedisRoomBus, ROOM_CHANNEL_PREFIX } from '../../server/src/sync/bus/redis-bus';
import type { RoomBus, RoomBusListener } from '../../server/src/sync/bus/room-bus';
import { openPostgresStore } from '../../server/src/store/postgres';
import type { SharedStore } from '../../server/src/store/shared-store';
import { waitFor } from '../helpers';
import { startPostgres, type TestPostgres } from '../helpers/scale/postgres';
import { startRedis, type TestRedis } from '../helpers/scale/redis';

/** A listener that records what it was told. */
function recorder(): RoomBusListener & { frames: BusFrame[]; resyncs: number } {
  const r = {
    frames: [] as BusFrame[],
    resyncs: 0,
    message: (f: BusFrame) => r.frames.push(f),
    resync: () => r.resyncs++,
  };
  return r;
}

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.close();
});

/** The bus behaviour both implementations share. */
function describeRoomBus(name: string, makeBuses: (n: number, errors: Error[]) => Promise<RoomBus[]>, subscribers?: (room: string) => Promise<number>): void {
  describe(`room bus: ${name}`, () => {
    let buses: RoomBus[] = [];
    afterEach(async () => {
      for (const b of buses) await b.close();
      buses = [];
    });

    it('delivers a room\'s messages only to the other instances holding it, and stops at leave', async () => {
      const errors: Error[] = [];
      buses = await makeBuses(3, errors);
      const [a, b, c] = buses as [RoomBus, RoomBus, RoomBus];
      const [ra, rb, rc] = [recorder(), recorder(), recorder()];
      await a.join('r1', ra);
      await b.join('r1', rb);
      await c.join('r2', rc);
      if (subscribers) {
        expect(await subscribers('r1')).toBe(2);
        expect(await subscribers('r2')).toBe(1);
      }
      await a.publish('r1', BusKind.update, new Uint8Array([1, 2, 3]));
      await a.publish('r1', BusKind.awareness, new Uint8Array([4]));
      await waitFor(() => rb.frames.length === 2, 'both messages at b');
      expect(rb.frames).toEqual([
        { kind: BusKind.update, origin: a.instanceId, data: new Uint8Array([1, 2, 3]) },
        { kind: BusKind.awareness, origin: a.instanceId, data: new Uint8Array([4]) },
      ]);
      await b.leave('r1');
      if (subscribers) expect(await subscribers('r1')).toBe(1);
      await a.publish('r1', BusKind.update, new Uint8Array([5]));
      // c publishes on its own room after a's last message: once it arrives, a's would have too.
      await c.join('r1', rc);
      await a.publish('r1', BusKind.update, new Uint8Array([6]));
      await waitFor(() => rc.frames.length === 1, 'the message c joined for');
      expect(rc.frames[0]!.data).toEqual(new Uint8Array([6]));
      expect(rb.frames).toHaveLength(2);
      expect(ra.frames).toEqual([]);
      expect(a.rooms()).toEqual(['r1']);
      expect(errors).toEqual([]);
    });

    it('tells a holder to resync when another instance asks', async () => {
      buses = await makeBuses(2, []);
      const [a, b] = buses as [RoomBus, RoomBus];
      const rb = recorder();
      await a.join('r', recorder());
      await b.join('r', rb);
      await a.publish('r', BusKind.resync, new Uint8Array(0));
      await waitFor(() => rb.resyncs === 1, 'the resync at b');
      expect(rb.frames).toEqual([]);
    });
  });
}

describeRoomBus('in-process (embedded mode)', async (n, errors) => {
  const hub = new LocalBusHub();
  return Array.from({ length: n }, () => new LocalRoomBus(hub, (e) => errors.push(e)));
});

describeRoomBus(
  'Redis',
  (n, errors) => Promise.all(Array.from({ length: n }, () => RedisRoomBus.connect(redis.url, (e) => errors.push(e)))),
  async (room) => {
    const client = new Redis(redis.url);
    try {
      const [, count] = (await client.pubsub('NUMSUB', ROOM_CHANNEL_PREFIX + room)) as [string, number];
      return Number(count);
    } finally {
      client.disconnect();
    }
  },
);

describe('room bus on Redis: hostile input and restarts', () => {
  let pgServer: TestPostgres | undefined;
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await pgServer?.close();
    pgServer = undefined;
  });

  it('drops a message that is not a bus frame with BusFrameError and keeps delivering', async () => {
    const errors: Error[] = [];
    const bus = await RedisRoomBus.connect(redis.url, (e) => errors.push(e));
    closers.push(() => bus.close());
    const raw = new Redis(redis.url);
    closers.push(async () => raw.disconnect());
    const r = recorder();
    await bus.join('r', r);
    await raw.publish(ROOM_CHANNEL_PREFIX + 'r', 'not a frame');
    await raw.publish(ROOM_CHANNEL_PREFIX + 'r', Buffer.from([1, 0, 3, 0x41, 0x42, 0x43, 1, 9]));
    await waitFor(() => r.frames.length === 1, 'the valid frame');
    expect(r.frames[0]).toEqual({ kind: BusKind.update, origin: 'ABC', data: new Uint8Array([9]) });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(BusFrameError);
  });

  it('loses nothing durable when Redis restarts mid-stream: the holder resyncs from the log and converges', async () => {
    pgServer = await startPostgres();
    const url = await pgServer.createDatabase('bus_restart');
    const stores: SharedStore[] = [await openPostgresStore(url), await openPostgresStore(url)];
    closers.push(async () => Promise.all(stores.map((s) => s.close())));
    const [storeA, storeB] = stores as [SharedStore, SharedStore];
    const errorsA: Error[] = [];
    const busA = await RedisRoomBus.connect(redis.url, (e) => errorsA.push(e));
    const busB = await RedisRoomBus.connect(redis.url);
    closers.push(() => busA.close(), () => busB.close());

    // Instance A writes; instance B holds the room: it applies what the bus brings, and reloads
    // the room from the log when told to resync.
    const docA = new Y.Doc();
    const docB = new Y.Doc();
    let viaBus = 0;
    let viaBusAfterRestart = 0;
    let restarted = false;
    let resyncs = 0;
    await busA.join('r', recorder());
    await busB.join('r', {
      message: (f) => {
        Y.applyUpdate(docB, f.data);
        viaBus++;
        if (restarted) viaBusAfterRestart++;
      },
      resync: () => {
        resyncs++;
        void storeB.roomLog.load('r').then((state) => {
          if (state.snapshot) Y.applyUpdate(docB, state.snapshot);
          for (const u of state.updates) Y.applyUpdate(docB, u);
        });
      },
    });

    // Writes until B has had 20 updates through the bus since Redis came back (the bound of 5,000
    // only ends a run where it never does, which the assertions below then report).
    let written = 0;
    const writer = (async () => {
      for (let i = 0; i < 5_000 && !(restarted && viaBusAfterRestart >= 20); i++) {
        const before = Y.encodeStateVector(docA);
        docA.getMap('m').set(`k${i}`, i);
        const update = Y.encodeStateAsUpdate(docA, before);
        await storeA.roomLog.appendRooms([{ roomId: 'r', updates: [update] }]);
        await busA.publish('r', BusKind.update, update);
        written++;
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    await waitFor(() => written >= 80, '80 updates written');
    await redis.kill();
    await waitFor(() => written >= 160, '80 more written while Redis is down');
    await redis.start();
    restarted = true;
    await writer;
    const total = written;
    await waitFor(() => docB.getMap('m').size === total, 'B to hold every update', 20_000);

    expect(docB.getMap('m').toJSON()).toEqual(docA.getMap('m').toJSON());
    expect(resyncs).toBeGreaterThan(0);
    expect(viaBus).toBeGreaterThan(0);
    expect(viaBusAfterRestart).toBeGreaterThanOrEqual(20);
    expect(errorsA.length).toBeGreaterThan(0);
    expect((await storeB.roomLog.load('r')).updates).toHaveLength(total);
    docA.destroy();
    docB.destroy();
  });
});
