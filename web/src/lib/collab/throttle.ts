/**
 * Runs `fn` at most once per `ms`: a request after a quiet spell runs it at once, and requests
 * inside the spell are answered by one run at its end, so the last request is never lost.
 */
export class Throttle {
  private last = Number.NEGATIVE_INFINITY;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly ms: number,
    private readonly fn: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Asks for a run: now, or at the end of the current spell. */
  request(): void {
    if (this.timer) return;
    const wait = this.last + this.ms - this.now();
    if (wait <= 0) this.run();
    else this.timer = setTimeout(() => this.run(), wait);
  }

  /** Drops a pending run. */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private run(): void {
    this.timer = null;
    this.last = this.now();
    this.fn();
  }
}
