/** What the heartbeat needs of a socket (`ws`'s WebSocket has both). */
export interface Pingable {
  ping(): void;
  terminate(): void;
}

/** Time between ticks, ms: each tick handles the sockets of one such slice of the period. */
export const HEARTBEAT_TICK_MS = 100;

/**
 * Finds dead sockets (e.g. a vanished laptop) without a burst: every socket is pinged about once
 * per `periodMs`, but the sockets are spread over the ticks of the period (one every
 * `HEARTBEAT_TICK_MS`), so with a 30 s period 2,000 sockets cost 7 pings a tick instead of 2,000
 * pings (and then 2,000 pongs) in one event-loop turn. A socket whose turn comes while its last
 * ping is unanswered is terminated, provided that ping is at least half a period old (sockets
 * ahead of it may have left, moving its turn forward).
 */
export class Heartbeat<S extends Pingable> {
  private readonly answered = new WeakSet<S>();
  private readonly pingedAt = new WeakMap<S, number>();
  private readonly timer: NodeJS.Timeout;
  private sweep: Iterator<S> | undefined;
  private quota = 0;
  private tickOfSweep = 0;
  private readonly slices: number;

  constructor(
    private readonly sockets: ReadonlySet<S>,
    private readonly periodMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.slices = Math.max(1, Math.round(periodMs / HEARTBEAT_TICK_MS));
    this.timer = setInterval(() => this.tick(), periodMs / this.slices);
    this.timer.unref();
  }

  /** Records a sign of life: call it when a socket connects and on every pong. */
  alive(socket: S): void {
    this.answered.add(socket);
  }

  /** One tick: starts a sweep over all sockets once a period, and handles this tick's share of it. */
  tick(): void {
    if (this.tickOfSweep === 0) {
      this.sweep = this.sockets.values();
      this.quota = Math.ceil(this.sockets.size / this.slices);
    }
    this.tickOfSweep = (this.tickOfSweep + 1) % this.slices;
    for (let i = 0; i < this.quota && this.sweep; i += 1) {
      const next = this.sweep.next();
      if (next.done) this.sweep = undefined;
      else this.check(next.value);
    }
  }

  private check(socket: S): void {
    const now = this.now();
    if (!this.answered.has(socket)) {
      if (now - (this.pingedAt.get(socket) ?? -Infinity) >= this.periodMs / 2) socket.terminate();
      return;
    }
    this.answered.delete(socket);
    this.pingedAt.set(socket, now);
    socket.ping();
  }

  /** Stops the timer. */
  stop(): void {
    clearInterval(this.timer);
  }
}
