import type { BusFrame, BusKind } from './frame';

/** What a room's holder is told by the bus. */
export interface RoomBusListener {
  /** A message another instance published for this room. */
  message(frame: BusFrame): void;
  /**
   * Messages for this room may have been missed (the bus connection was lost, or a publisher
   * could not publish): reload the room from the shared log. Nothing durable is on the bus.
   */
  resync(): void;
}

/**
 * Carries a room's committed updates and awareness between the instances that hold the room,
 * and only to them: an instance joins a room's channel when it loads the room and leaves it when
 * it unloads it. An instance never receives its own messages. Publishing is best effort: an
 * update is published only after it is committed to the shared log, which is what makes it
 * durable; a failed publish is reported to `onError` and answered by a `resync`. Implementations:
 * `RedisRoomBus` (scaled mode, Redis pub/sub, one channel per room) and `LocalRoomBus`
 * (in-process, embedded mode).
 */
export interface RoomBus {
  /** This instance's id, the `origin` of what it publishes. */
  readonly instanceId: string;
  /**
   * Starts receiving the room's messages (resolves once subscribed). One listener per room.
   * Resolves with the ids of the other instances that have joined the room (recently, as far as
   * the bus remembers; none when it cannot tell): their server client IDs are known before anyone
   * writes here.
   */
  join(roomId: string, listener: RoomBusListener): Promise<string[]>;
  /** Stops receiving the room's messages. */
  leave(roomId: string): Promise<void>;
  /** The rooms joined now. */
  rooms(): string[];
  /** Sends `data` to the other instances holding the room. Never rejects: failures go to `onError`. */
  publish(roomId: string, kind: BusKind, data: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/** Where a bus reports what it could not do (a failed publish, a malformed message): the caller logs it. */
export type BusErrorHandler = (err: Error) => void;
