import type { TraceEvent, TraceTrack, WindowColumns } from '@seam/shared/trace';
import { eventOf } from './event-columns';
import { formatUs, type TimeRange } from './timeline-model';

/** Geometry of the timeline, in CSS pixels. */
export const LABEL_WIDTH = 180;
export const AXIS_HEIGHT = 20;
export const GROUP_HEIGHT = 16;
export const ROW_HEIGHT = 20;

const GROUP_NAMES = { device: 'Devices', stream: 'Streams', host: 'Host threads', other: 'Other' } as const;

/** A row of the timeline: a group heading (a track kind) or a track. */
export type TimelineRow =
  | { readonly type: 'group'; readonly label: string; readonly y: number }
  | { readonly type: 'track'; readonly track: TraceTrack; readonly label: string; readonly y: number };

/** Rows for tracks already ordered by kind: a heading before each kind, then its tracks; and the height they take. */
export function layoutRows(tracks: readonly TraceTrack[]): { rows: TimelineRow[]; height: number } {
  const rows: TimelineRow[] = [];
  let y = AXIS_HEIGHT;
  let kind: string | null = null;
  for (const t of tracks) {
    if (t.kind !== kind) {
      kind = t.kind;
      rows.push({ type: 'group', label: GROUP_NAMES[t.kind], y });
      y += GROUP_HEIGHT;
    }
    rows.push({ type: 'track', track: t, label: `${t.process} · ${t.name}`, y });
    y += ROW_HEIGHT;
  }
  return { rows, height: y + 4 };
}

/** Colours the timeline takes from the page's theme. */
export interface TimelinePalette {
  readonly bg: string;
  readonly fg: string;
  readonly muted: string;
  readonly border: string;
  readonly selection: string;
}

/** A stable hue for a name, so one op has one colour in every window. */
function hue(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return (h >>> 0) % 360;
}

/** The x of time `us` in a plot `width` wide that starts at `LABEL_WIDTH`. */
export function xOf(us: number, view: TimeRange, width: number): number {
  return LABEL_WIDTH + ((us - view.fromUs) / (view.toUs - view.fromUs)) * (width - LABEL_WIDTH);
}

/** The time at x (inverse of {@link xOf}). */
export function timeAt(x: number, view: TimeRange, width: number): number {
  return view.fromUs + ((x - LABEL_WIDTH) / (width - LABEL_WIDTH)) * (view.toUs - view.fromUs);
}

/** Fits `text` into `max` pixels, ending in … when cut. */
function fit(ctx: CanvasRenderingContext2D, text: string, max: number): string {
  if (ctx.measureText(text).width <= max) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(`${text.slice(0, mid)}…`).width <= max) lo = mid;
    else hi = mid - 1;
  }
  return lo > 0 ? `${text.slice(0, lo)}…` : '';
}

/**
 * The events of `data` on their rows (see {@link drawTimeline}), from the typed columns, setting the
 * fill and alpha only when they change; returns how many events of the op `highlight` it drew.
 */
function drawEvents(ctx: CanvasRenderingContext2D, data: WindowColumns, fills: readonly string[], view: TimeRange, width: number, yOf: ReadonlyMap<number, number>, palette: TimelinePalette, highlight: string | null): number {
  // The highlighted op's string id; -1 when none (or it is not in this window).
  const lit = highlight == null ? -1 : data.strings.indexOf(highlight);
  const scale = (width - LABEL_WIDTH) / (view.toUs - view.fromUs);
  let highlighted = 0;
  let fill = '';
  let alpha = 1;
  for (const t of data.tracks) {
    const y = yOf.get(t.track);
    if (y === undefined) continue;
    const { start, dur, name, op } = t;
    /** The pixel column after the last event under a pixel wide drawn on this track. */
    let narrowTo = -Infinity;
    for (let i = 0; i < start.length; i++) {
      const s = start[i]!;
      if (s > view.toUs) break;
      const x0 = LABEL_WIDTH + (s - view.fromUs) * scale;
      const x1 = x0 + dur[i]! * scale;
      if (x1 < LABEL_WIDTH) continue;
      const isLit = lit >= 0 && op[i] === lit;
      // An event under a pixel wide in a column already drawn on its track adds nothing (zoomed out, thousands share a column).
      if (x1 - x0 < 1 && !isLit) {
        const px = Math.floor(x0);
        if (px < narrowTo) continue;
        narrowTo = px + 1;
      }
      const w = Math.max(1, x1 - x0);
      if (isLit) highlighted++;
      const a = highlight == null || isLit ? 1 : 0.25;
      if (a !== alpha) ctx.globalAlpha = alpha = a;
      const f = isLit ? palette.selection : fills[op[i]! >= 0 ? op[i]! : name[i]!] ?? palette.muted;
      if (f !== fill) ctx.fillStyle = fill = f;
      ctx.fillRect(x0, y + 2, w, ROW_HEIGHT - 4);
      if (w > 30) {
        const left = Math.max(x0, LABEL_WIDTH) + 3;
        const label = fit(ctx, data.strings[name[i]!] ?? '', Math.min(x1, width) - left - 3);
        if (label) {
          if (alpha !== 1) ctx.globalAlpha = alpha = 1;
          ctx.fillStyle = fill = '#111';
          ctx.fillText(label, left, y + ROW_HEIGHT / 2);
        }
      }
    }
  }
  ctx.globalAlpha = 1;
  return highlighted;
}

/** Each string's fill (a stable hue of the op or name): a window's colours worked out once, not per event per frame. */
export function fillsOf(strings: readonly string[]): string[] {
  return strings.map((name) => `hsl(${hue(name)} 55% 55%)`);
}

/**
 * Draws the timeline at `dpr` device pixels per CSS pixel: the time axis (from `originUs`, the trace's start), the rows' labels and each
 * track's events of `data` as rects (named where wide enough; `fills` from {@link fillsOf} of its strings), the hovered event outlined and the selected
 * range shaded. Events narrower than a pixel are drawn a pixel wide, so none vanishes, and only the
 * first of those in one pixel column of a track (the drawing then costs pixels, not events). With
 * `highlight` (an HLO op), that op's events are filled in the selection colour and the others
 * faded; returns how many of its events were drawn.
 */
export function drawTimeline(
  ctx: CanvasRenderingContext2D,
  o: { width: number; height: number; dpr: number; originUs: number; view: TimeRange; rows: readonly TimelineRow[]; data: WindowColumns | null; fills: readonly string[]; hover: TraceEvent | null; selection: TimeRange | null; palette: TimelinePalette; highlight?: string | null },
): number {
  const { width, height, dpr, view, rows, palette } = o;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = palette.bg;
  ctx.fillRect(0, 0, width, height);
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  const yOf = new Map<number, number>();
  for (const r of rows) if (r.type === 'track') yOf.set(r.track.id, r.y);
  // Axis: about one tick per 120 px, at a round step.
  const span = view.toUs - view.fromUs;
  const raw = (span * 120) / Math.max(1, width - LABEL_WIDTH);
  const pow = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? raw;
  ctx.strokeStyle = palette.border;
  ctx.fillStyle = palette.muted;
  ctx.beginPath();
  for (let t = o.originUs + Math.ceil((view.fromUs - o.originUs) / step) * step; t <= view.toUs; t += step) {
    const x = Math.round(xOf(t, view, width)) + 0.5;
    ctx.moveTo(x, AXIS_HEIGHT - 4);
    ctx.lineTo(x, height);
    ctx.fillText(formatUs(t - o.originUs), x + 3, AXIS_HEIGHT / 2);
  }
  ctx.globalAlpha = 0.35;
  ctx.stroke();
  ctx.globalAlpha = 1;
  // Events, clipped to the plot.
  ctx.save();
  ctx.beginPath();
  ctx.rect(LABEL_WIDTH, AXIS_HEIGHT, width - LABEL_WIDTH, height - AXIS_HEIGHT);
  ctx.clip();
  const highlighted = o.data ? drawEvents(ctx, o.data, o.fills, view, width, yOf, palette, o.highlight ?? null) : 0;
  if (o.hover) {
    const y = yOf.get(o.hover.track);
    if (y !== undefined) {
      const x0 = xOf(o.hover.startUs, view, width);
      ctx.strokeStyle = palette.fg;
      ctx.lineWidth = 2;
      ctx.strokeRect(x0, y + 1, Math.max(2, xOf(o.hover.startUs + o.hover.durUs, view, width) - x0), ROW_HEIGHT - 2);
      ctx.lineWidth = 1;
    }
  }
  if (o.selection) {
    const a = xOf(o.selection.fromUs, view, width);
    const b = xOf(o.selection.toUs, view, width);
    ctx.fillStyle = palette.selection;
    ctx.globalAlpha = 0.25;
    ctx.fillRect(a, AXIS_HEIGHT, Math.max(1, b - a), height - AXIS_HEIGHT);
    ctx.globalAlpha = 1;
  }
  ctx.restore();
  // Labels over a plain column, so long rects never run under them.
  ctx.fillStyle = palette.bg;
  ctx.fillRect(0, 0, LABEL_WIDTH, height);
  for (const r of rows) {
    if (r.type === 'group') {
      ctx.fillStyle = palette.muted;
      ctx.font = '600 10px system-ui, sans-serif';
      ctx.fillText(r.label.toUpperCase(), 6, r.y + GROUP_HEIGHT / 2);
      ctx.font = '11px system-ui, sans-serif';
    } else {
      ctx.fillStyle = palette.fg;
      ctx.fillText(fit(ctx, r.label, LABEL_WIDTH - 12), 6, r.y + ROW_HEIGHT / 2);
    }
  }
  ctx.strokeStyle = palette.border;
  ctx.beginPath();
  ctx.moveTo(LABEL_WIDTH + 0.5, 0);
  ctx.lineTo(LABEL_WIDTH + 0.5, height);
  ctx.moveTo(0, AXIS_HEIGHT + 0.5);
  ctx.lineTo(width, AXIS_HEIGHT + 0.5);
  ctx.stroke();
  return highlighted;
}

/** The event under (x, y): on that row's track, covering that time within 2 px, the shortest (innermost) when nested. */
export function eventAt(x: number, y: number, o: { width: number; view: TimeRange; rows: readonly TimelineRow[]; data: WindowColumns | null }): TraceEvent | null {
  if (x < LABEL_WIDTH || !o.data) return null;
  const row = o.rows.find((r) => r.type === 'track' && y >= r.y && y < r.y + ROW_HEIGHT);
  if (!row || row.type !== 'track') return null;
  const t = o.data.tracks.find((c) => c.track === row.track.id);
  if (!t) return null;
  const slack = (2 * (o.view.toUs - o.view.fromUs)) / Math.max(1, o.width - LABEL_WIDTH);
  const at = timeAt(x, o.view, o.width);
  let best = -1;
  for (let i = 0; i < t.start.length; i++) {
    const s = t.start[i]!;
    if (s - slack > at) break;
    if (s + t.dur[i]! + slack < at) continue;
    if (best < 0 || t.dur[i]! < t.dur[best]!) best = i;
  }
  return best < 0 ? null : eventOf(o.data, t, best);
}
