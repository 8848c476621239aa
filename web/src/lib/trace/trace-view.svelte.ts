import type { OpAggregate, TraceEvent, TraceSummary, WindowColumns } from '@seam/shared/trace';
import type { TraceApi } from './trace-api';
import { fillsOf } from './timeline-draw';
import { clampRange, fetchWindow, orderTracks, panBy, rangeStats, zoomAround, type RangeStats, type TimeRange } from './timeline-model';

/** Events asked for per track in one window: about two per pixel of a wide timeline. */
const WINDOW_LIMIT = 4000;
/** Windows kept, by range: zooming back out finds them. */
const CACHED_WINDOWS = 16;
/** How long the view must rest before a new window is fetched. */
const FETCH_DELAY_MS = 60;
/** A view at least this share of the trace is drawn from the overview alone. */
const WHOLE = 0.999;

/**
 * One open trace: its summary, overview and op aggregates, the visible time range (zoomed and
 * panned), the event windows fetched for it (in columns; debounced, cached by range), the selected
 * range and its statistics, and the event under the pointer. The overview (the whole trace at
 * about a pixel an event) is drawn first and wherever no finer window covers the view yet.
 */
export class TraceViewState {
  summary = $state.raw<TraceSummary | null>(null);
  ops = $state.raw<readonly OpAggregate[]>([]);
  error = $state<string | null>(null);
  view = $state.raw<TimeRange>({ fromUs: 0, toUs: 1 });
  /** The whole trace, each track downsampled past a few thousand events. */
  overview = $state.raw<WindowColumns | null>(null);
  /** The window drawn: the cached one that covers the view best, else the overview. */
  shown = $state.raw<WindowColumns | null>(null);
  selection = $state.raw<TimeRange | null>(null);
  hover = $state.raw<TraceEvent | null>(null);
  selecting = $state(false);
  /** The HLO op pointed at in its dump (an instruction, or the fusion of a fused computation): its events are highlighted. */
  highlight = $state<string | null>(null);
  private readonly cache = new Map<string, WindowColumns>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private inflight: AbortController | null = null;

  readonly bounds: TimeRange = $derived(this.summary && this.summary.endUs > this.summary.startUs ? { fromUs: this.summary.startUs, toUs: this.summary.endUs } : { fromUs: 0, toUs: 1 });
  readonly tracks = $derived(orderTracks(this.summary?.tracks ?? []));
  /** The fill of each string of the shown window. */
  readonly fills: readonly string[] = $derived(this.shown ? fillsOf(this.shown.strings) : []);
  /** Whether the shown window holds fewer events than the range has. */
  readonly downsampled = $derived(this.shown?.tracks.some((t) => t.downsampled) ?? false);
  readonly stats: RangeStats | null = $derived(this.selection ? rangeStats(this.shown, this.selection) : null);

  constructor(private readonly api: TraceApi) {}

  /** Loads the summary and the overview together (then the view is drawn), and the op aggregates beside them. */
  async load(): Promise<void> {
    const fail = (e: unknown) => {
      this.error = e instanceof Error ? e.message : String(e);
    };
    this.api.ops().then((ops) => (this.ops = ops), fail);
    try {
      const [summary, overview] = await Promise.all([this.api.summary(), this.api.overview()]);
      this.summary = summary;
      this.overview = overview;
      this.view = this.bounds;
      this.pick();
    } catch (e) {
      fail(e);
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
    this.timer = null;
    if (this.needsWindow()) this.timer = setTimeout(() => void this.fetchNow(), FETCH_DELAY_MS);
  }

  /** Whether the view needs finer events than the overview's: it holds every event, or the view is the whole trace. */
  private needsWindow(): boolean {
    const o = this.overview;
    if (!o || !o.tracks.some((t) => t.downsampled)) return false;
    return this.view.toUs - this.view.fromUs < (this.bounds.toUs - this.bounds.fromUs) * WHOLE;
  }

  /** The cached window that covers the view with the least extra time, else the overview. */
  private pick(): void {
    let best: WindowColumns | null = null;
    if (this.needsWindow()) {
      for (const w of this.cache.values()) {
        if (w.fromUs <= this.view.fromUs && w.toUs >= this.view.toUs && (!best || w.toUs - w.fromUs < best.toUs - best.fromUs)) best = w;
      }
    }
    const next = best ?? this.overview;
    if (next !== this.shown) this.shown = next;
  }

  private async fetchNow(): Promise<void> {
    const want = fetchWindow(this.view, this.bounds);
    const key = `${want.fromUs}/${want.toUs}`;
    if (this.cache.has(key)) {
      this.pick();
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
    } catch (e) {
      if (!ctl.signal.aborted) this.error = e instanceof Error ? e.message : String(e);
    }
  }

  destroy(): void {
    if (this.timer) clearTimeout(this.timer);
    this.inflight?.abort();
  }
}
