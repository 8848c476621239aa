import { randomBytes } from 'node:crypto';
import { BusKind, type BusFrame } from './frame';
import type { BusErrorHandler, RoomBus, RoomBusListener } from './room-bus';

/** What a publish answers: it never fails. */
const NOTHING = Promise.resolve();

/**
 * The in-process bus hub: what Redis is to `RedisRoomBus`. Embedded mode has one instance on it
 * (so nothing is ever delivered); tests may put several.
 */
export class LocalBusHub {
  /** roomId → instanceId → listener. */
  readonly channels = new Map<string, Map<string, RoomBusListener>>();
}

/** A `RoomBus` on a `LocalBusHub`: delivery is in order, on a later microtask, to the other instances that joined the room. */
export class LocalRoomBus implements RoomBus {
  readonly instanceId = randomBytes(12).toString('base64url');

  constructor(private readonly hub: LocalBusHub, private readonly onError: BusErrorHandler = () => undefined) {}

  async join(roomId: string, listener: RoomBusListener): Promise<string[]> {
    let members = this.hub.channels.get(roomId);
    if (!members) this.hub.channels.set(roomId, (members = new Map()));
    members.set(this.instanceId, listener);
    return [...members.keys()].filter((id) => id !== this.instanceId);
  }

  async leave(roomId: string): Promise<void> {
    const members = this.hub.channels.get(roomId);
    members?.delete(this.instanceId);
    if (members?.size === 0) this.hub.channels.delete(roomId);
  }

  rooms(): string[] {
    return [...this.hub.channels].filter(([, m]) => m.has(this.instanceId)).map(([room]) => room);
  }

  publish(roomId: string, kind: BusKind, data: Uint8Array): Promise<void> {
    const members = this.hub.channels.get(roomId);
    // Embedded mode: this instance alone holds its rooms, so nothing is copied or delivered.
    if (!members || members.size <= 1) return NOTHING;
    const frame: BusFrame = { kind, origin: this.instanceId, data: data.slice() };
    for (const [id, listener] of members) {
      if (id === this.instanceId) continue;
      queueMicrotask(() => {
        try {
          if (frame.kind === BusKind.resync) listener.resync();
          else listener.message(frame);
        } catch (err) {
          this.onError(err instanceof Error ? err : new Error(String(err)));
        }
      });
    }
    return NOTHING;
  }

  async close(): Promise<void> {
    for (const room of this.rooms()) await this.leave(room);
  }
}
