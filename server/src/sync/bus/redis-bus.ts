import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { connectRedisPair } from './redis-pair';
import { BusFrameError, BusKind, readFrame, writeFrame } from './frame';
import type { BusErrorHandler, RoomBus, RoomBusListener } from './room-bus';

/** Channel of a room: `PREFIX` + room id. */
export const ROOM_CHANNEL_PREFIX = 'seam:room:';

/** Set of the instances that have joined a room: `PREFIX` + room id. */
export const ROOM_HOLDERS_PREFIX = 'seam:holders:';
/**
 * How long a room's holders set outlives its last join. A holder forgotten after that is an
 * instance that has not loaded the room for as long, long gone or learnt again from the bus.
 */
const HOLDERS_TTL_S = 7 * 24 * 3600;

/**
 * The room bus on Redis pub/sub: one channel per room, subscribed while this instance holds the
 * room, so a message reaches only the instances that hold its room (never a broadcast to every
 * instance). Two connections: one subscribed, one to publish (a subscribed connection can do
 * nothing else).
 *
 * Redis keeps nothing here: an update is durable once in the shared log, and the bus only spares
 * the other holders a reload. So when messages may have been lost, rooms resync from the log:
 * when the subscriber reconnects (after re-subscribing every held room, each room's listener gets
 * `resync`), and when the publisher reconnects after failing to publish to a room (it publishes a
 * `resync` frame there, for holders whose own connection never dropped). Publishing does not
 * queue while disconnected: it fails at once and is reported to `onError`.
 */
export class RedisRoomBus implements RoomBus {
  readonly instanceId = randomBytes(12).toString('base64url');
  private readonly listeners = new Map<string, RoomBusListener>();
  /** Rooms a publish to failed since the publisher was last connected. */
  private readonly missed = new Set<string>();
  private subscriberLost = false;
  private publisherLost = false;
  private closed = false;

  private constructor(private readonly pub: Redis, private readonly sub: Redis, private readonly onError: BusErrorHandler) {
    // Connection errors repeat every retry while Redis is down: report the first of each outage.
    pub.on('error', (err: Error) => {
      if (!this.publisherLost) onError(err);
      this.publisherLost = true;
    });
    sub.on('error', (err: Error) => {
      if (!this.subscriberLost) onError(err);
      this.subscriberLost = true;
    });
    pub.on('close', () => (this.publisherLost = true));
    sub.on('close', () => (this.subscriberLost = true));
    pub.on('ready', () => {
      if (!this.publisherLost) return;
      this.publisherLost = false;
      const rooms = [...this.missed];
      this.missed.clear();
      for (const room of rooms) void this.publish(room, BusKind.resync, new Uint8Array(0));
    });
    sub.on('ready', () => {
      if (!this.subscriberLost) return;
      this.subscriberLost = false;
      void this.resubscribe();
    });
    sub.on('messageBuffer', (channel: Buffer, message: Buffer) => this.deliver(channel.toString(), message));
  }

  /** Connects both connections to `url` (`redis://HOST:PORT`); rejects if Redis cannot be reached. */
  static async connect(url: string, onError: BusErrorHandler = () => undefined): Promise<RedisRoomBus> {
    // The bus re-subscribes itself after a reconnect, and then tells each room to resync.
    const { pub, sub } = await connectRedisPair(url, false);
    return new RedisRoomBus(pub, sub, onError);
  }

  private async resubscribe(): Promise<void> {
    const rooms = [...this.listeners.keys()];
    try {
      if (rooms.length > 0) await this.sub.subscribe(...rooms.map((r) => ROOM_CHANNEL_PREFIX + r));
    } catch (err) {
      // The connection dropped again; the next `ready` retries.
      this.onError(err as Error);
      return;
    }
    for (const room of rooms) this.listeners.get(room)?.resync();
  }

  private deliver(channel: string, message: Buffer): void {
    if (!channel.startsWith(ROOM_CHANNEL_PREFIX)) return;
    const listener = this.listeners.get(channel.slice(ROOM_CHANNEL_PREFIX.length));
    if (!listener) return;
    let frame;
    try {
      frame = readFrame(new Uint8Array(message.buffer, message.byteOffset, message.byteLength));
    } catch (err) {
      if (err instanceof BusFrameError) return this.onError(err);
      throw err;
    }
    if (frame.origin === this.instanceId) return;
    if (frame.kind === BusKind.resync) listener.resync();
    else listener.message(frame);
  }

  async join(roomId: string, listener: RoomBusListener): Promise<string[]> {
    this.listeners.set(roomId, listener);
    // While disconnected, the `ready` handler subscribes it (and resyncs it) on reconnection.
    if (this.sub.status === 'ready') await this.sub.subscribe(ROOM_CHANNEL_PREFIX + roomId);
    return this.holders(roomId);
  }

  /**
   * Adds this instance to the room's holders set and reads the others. Redis keeps nothing durable
   * here either: with Redis down or restarted, the answer is what it still has (or nothing), and
   * the holders are learnt from their messages instead.
   */
  private async holders(roomId: string): Promise<string[]> {
    const key = ROOM_HOLDERS_PREFIX + roomId;
    try {
      const answers = await this.pub.multi().sadd(key, this.instanceId).expire(key, HOLDERS_TTL_S).smembers(key).exec();
      const members = answers?.[2]?.[1];
      return Array.isArray(members) ? members.filter((m): m is string => typeof m === 'string' && m !== this.instanceId) : [];
    } catch (err) {
      this.onError(err as Error);
      return [];
    }
  }

  async leave(roomId: string): Promise<void> {
    if (!this.listeners.delete(roomId)) return;
    this.missed.delete(roomId);
    if (this.sub.status !== 'ready') return;
    try {
      await this.sub.unsubscribe(ROOM_CHANNEL_PREFIX + roomId);
    } catch (err) {
      this.onError(err as Error);
    }
  }

  rooms(): string[] {
    return [...this.listeners.keys()];
  }

  async publish(roomId: string, kind: BusKind, data: Uint8Array): Promise<void> {
    if (this.closed) return;
    try {
      await this.pub.publish(ROOM_CHANNEL_PREFIX + roomId, Buffer.from(writeFrame({ kind, origin: this.instanceId, data })));
    } catch (err) {
      this.missed.add(roomId);
      this.publisherLost = true;
      this.onError(err as Error);
    }
  }

  /** Asks Redis for a PONG on the publishing connection (rejects while it is down). */
  async ping(): Promise<void> {
    await this.pub.ping();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    this.pub.disconnect();
    this.sub.disconnect();
  }
}
