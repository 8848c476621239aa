import type { Annotation } from '@seam/shared/model';
import type { PresenterSample } from '@seam/shared/teaching';
import { fetchHistory } from './replay-api';
import { ReplayEngine } from './replay-engine';

/** The replay speeds: how many seconds of the session pass per second of playing. */
export const REPLAY_SPEEDS = [1, 4, 16, 60] as const;
export type ReplaySpeed = (typeof REPLAY_SPEEDS)[number];

/** A mark on the timeline: when an annotation was made, and its kind. */
export interface ReplayTick {
  readonly at: number;
  readonly kind: Annotation['kind'];
  readonly id: string;
}

/**
 * One replay of a room's session: the history, fetched once, rebuilt apart from the live room at
 * the scrubbed time (`ReplayEngine`: its own Y.Doc, and the annotations it read as it walked); the annotations and the presenter's place at that moment; play,
 * pause and speed. Nothing of the live room is read or written.
 */
export class ReplayState {
  status = $state<'loading' | 'ready' | 'failed'>('loading');
  error = $state<string | null>(null);
  /** The moment shown, ms since 1970. */
  t = $state(0);
  startsAt = $state(0);
  endsAt = $state(0);
  /** Whether older history was dropped, so the replay starts later than the session did. */
  dropped = $state(false);
  /** Whether the history was longer than a replay reads. */
  cut = $state(false);
  playing = $state(false);
  speed = $state<ReplaySpeed>(1);
  annotations = $state.raw<Annotation[]>([]);
  presenter = $state.raw<PresenterSample | null>(null);
  ticks = $state.raw<ReplayTick[]>([]);
  private engine: ReplayEngine | null = null;
  private frame = 0;
  private last = 0;
  private building: ReturnType<typeof setTimeout> | undefined;
  /** How many updates the annotations shown hold. */
  private shownCount = -1;

  constructor(
    private readonly roomId: string,
    private readonly token: string,
    private readonly fetcher: typeof fetch = (...a) => fetch(...a),
  ) {}

  /** Fetches the history and shows its first moment. */
  async load(): Promise<void> {
    try {
      const h = await fetchHistory(this.roomId, this.token, this.fetcher);
      const engine = new ReplayEngine(h);
      this.engine = engine;
      this.startsAt = engine.startsAt;
      this.endsAt = engine.endsAt;
      this.dropped = engine.dropped;
      this.cut = h.cut;
      this.status = 'ready';
      this.seek(engine.startsAt);
      // The first moment is shown; the snapshots and the timeline's ticks follow in slices.
      this.building = setTimeout(this.build, 0);
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
      this.status = 'failed';
    }
  }

  /** Takes the next slice of snapshots (8 ms), then once all are taken marks where annotations appear. */
  private readonly build = (): void => {
    const e = this.engine;
    if (!e) return;
    if (!e.advance(undefined, 8)) {
      this.building = setTimeout(this.build, 0);
      return;
    }
    this.building = undefined;
    this.ticks = e.annotationsAt(e.endsAt)
      .filter((a) => a.createdAt >= e.startsAt && a.createdAt <= e.endsAt)
      .map((a) => ({ at: a.createdAt, kind: a.kind, id: a.id }))
      .sort((a, b) => a.at - b.at);
  };

  /** Shows the session as it was at `t` (clamped to the history). */
  seek(t: number): void {
    const e = this.engine;
    if (!e) return;
    this.t = Math.min(Math.max(t, e.startsAt), e.endsAt);
    // Between two updates the document is the same: its annotations are not read again, nor redrawn.
    const n = e.countAt(this.t);
    if (n !== this.shownCount) {
      this.annotations = e.annotationsAt(this.t);
      this.shownCount = n;
    }
    this.presenter = e.presenterAt(this.t);
  }

  play(): void {
    if (!this.engine || this.playing) return;
    if (this.t >= this.endsAt) this.seek(this.startsAt);
    this.playing = true;
    this.last = performance.now();
    this.frame = requestAnimationFrame(this.tick);
  }

  pause(): void {
    this.playing = false;
    cancelAnimationFrame(this.frame);
  }

  private readonly tick = (now: number): void => {
    if (!this.playing) return;
    const dt = Math.max(0, now - this.last);
    this.last = now;
    this.seek(this.t + dt * this.speed);
    if (this.t >= this.endsAt) this.pause();
    else this.frame = requestAnimationFrame(this.tick);
  };

  destroy(): void {
    this.pause();
    clearTimeout(this.building);
    this.engine?.destroy();
    this.engine = null;
  }
}
