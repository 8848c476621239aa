import type { OpAggregate, TraceEvent, TraceSummary } from '@seam/shared/trace';
import type { TraceApi, TraceWindows } from './trace-api';
import { clampRange, fetchWindow, orderTracks, panBy, rangeStats, zoomAround, type RangeStats, type TimeRange } from './timeline-model';

/** Events asked for per track in one window: about two per pixel of a wide timeline. */
const WINDOW_LIMIT = 4000;
/** Windows kept, by range: zooming back out finds them. */
const CACHED_WINDOWS = 16;
/** How long the view must rest before a new window is fetched. */
const FETCH_DELAY_MS = 60;

/**
 * One open trace: its summary and op aggregates, the visible time range (zoomed and panned), the
 * event windows fetched for it (debounced, cached by range), the selected range and its statistics,
 * and the event under the pointer.
 */
export class TraceViewState {
  summary = $state.raw<TraceSummary | null>(null);
  ops = $state.raw<readonly OpAggregate[]>([]);
  error = $state<string | null>(null);
  view = $state.raw<TimeRange>({ fromUs: 0, toUs: 1 });
  /** The window drawn: the cached one that covers the view best. */
  shown = $state.raw<TraceWindows | null>(null);
  selection = $state.raw<TimeRange | null>(null);
  hover = $state.raw<TraceEvent | null>(null);
  selecting = $state(false);
  /** The HLO op pointed at in its dump (an instruction, or the fusion of a fused computation): its events are highlighted. */
  highlight = $state<string | null>(null);
  private readonly cache = new Map<string, TraceWindows>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private inflight: AbortController | null = null;

  readonly bounds: TimeRange = $derived(this.summary && this.summary.endUs > this.summary.startUs ? { fromUs: this.summary.startUs, toUs: this.summary.endUs } : { fromUs: 0, toUs: 1 });
  readonly tracks = $derived(orderTracks(this.summary?.tracks ?? []));
  readonly events: readonly TraceEvent[] = $derived(this.shown ? this.shown.windows.flatMap((w) => w.events) : []);
  readonly stats: RangeStats | null = $derived(this.selection ? rangeStats(this.events, this.selection) : null);

  constructor(private readonly api: TraceApi) {}

  /** Loads the summary and ops, then the whole trace's first window. */
  async load(): Promise<void> {
    try {
      const [summary, ops] = await Promise.all([this.api.summary(), this.api.ops()]);
      this.summary = summary;
      this.ops = ops;
      this.view = this.bounds;
      await this.fetchNow();
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  /** Zooms by `factor` around time `atUs` (below 1 zooms in). */
  zoom(atUs: number, factor: number): void {
    this.setView(zoomAround(this.view, atUs, factor, this.bounds));
  }

  pan(deltaUs: number): void {
    this.setView(panBy(this.view, deltaUs, this.bounds));
  }

  /** Shows the whole trace. */
  reset(): void {
    this.setView(this.bounds);
  }

  setView(range: TimeRange): void {
    this.view = clampRange(range, this.bounds);
    this.pick();
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.fetchNow(), FETCH_DELAY_MS);
  }

  /** The cached window that covers the view with the least extra time, else the last one shown. */
  private pick(): void {
    let best: TraceWindows | null = null;
    for (const w of this.cache.values()) {
      if (w.fromUs <= this.view.fromUs && w.toUs >= this.view.toUs && (!best || w.toUs - w.fromUs < best.toUs - best.fromUs)) best = w;
    }
    if (best && best !== this.shown) this.shown = best;
  }

  private async fetchNow(): Promise<void> {
    const want = fetchWindow(this.view, this.bounds);
    const key = `${want.fromUs}/${want.toUs}`;
    const hit = this.cache.get(key);
    if (hit) {
      this.shown = hit;
      return;
    }
    this.inflight?.abort();
    const ctl = new AbortController();
    this.inflight = ctl;
    try {
      const w = await this.api.events(want.fromUs, want.toUs, WINDOW_LIMIT, ctl.signal);
      this.cache.set(key, w);
      if (this.cache.size > CACHED_WINDOWS) this.cache.delete(this.cache.keys().next().value!);
      this.pick();
      if (this.shown === null || (this.shown.fromUs > this.view.fromUs || this.shown.toUs < this.view.toUs)) this.shown = w;
    } catch (e) {
      if (!ctl.signal.aborted) this.error = e instanceof Error ? e.message : String(e);
    }
  }

  destroy(): void {
    if (this.timer) clearTimeout(this.timer);
    this.inflight?.abort();
  }
}
