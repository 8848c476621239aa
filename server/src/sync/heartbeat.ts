/** What the heartbeat needs of a socket (`ws`'s WebSocket has both). */
export interface Pingable {
  ping(): void;
  terminate(): void;
}

/** Ticks per period: each tick handles about 1/SLICES of the sockets. */
const SLICES = 30;

/**
 * Finds dead sockets (e.g. a vanished laptop) without a burst: every socket is pinged about once
 * per `periodMs`, but the sockets are spread over `SLICES` ticks of the period, so 2,000 sockets
 * cost about 67 pings a tick instead of 2,000 pings (and then 2,000 pongs) in one event-loop
 * turn. A socket whose turn comes while its last ping is unanswered is terminated, provided that
 * ping is at least half a period old (sockets ahead of it may have left, moving its turn forward).
 */
export class Heartbeat<S extends Pingable> {
  private readonly answered = new WeakSet<S>();
  private readonly pingedAt = new WeakMap<S, number>();
  private readonly timer: NodeJS.Timeout;
  private sweep: Iterator<S> | undefined;
  private quota = 0;
  private tickOfSweep = 0;

  constructor(
    private readonly sockets: ReadonlySet<S>,
    private readonly periodMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.timer = setInterval(() => this.tick(), periodMs / SLICES);
    this.timer.unref();
  }

  /** Records a sign of life: call it when a socket connects and on every pong. */
  alive(socket: S): void {
    this.answered.add(socket);
  }

  /** One tick: starts a sweep over all sockets every `SLICES` ticks, and handles this tick's share of it. */
  tick(): void {
    if (this.tickOfSweep === 0) {
      this.sweep = this.sockets.values();
      this.quota = Math.ceil(this.sockets.size / SLICES);
    }
    this.tickOfSweep = (this.tickOfSweep + 1) % SLICES;
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
