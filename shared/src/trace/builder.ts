import { TraceTooLarge } from './errors';
import { f64, Growable, i32 } from '../columns/growable';
import type { OpAggregate, ReducedTrace, TraceFormat, TraceLimits, TraceStep, TraceTrack, TrackKind } from './types';

interface TrackDraft {
  kind: TrackKind;
  process: string;
  name: string;
  sortIndex: number;
  readonly order: number;
}

interface OpDraft { module: string; op: string; count: number; totalUs: number; minUs: number; maxUs: number }

/**
 * Collects a trace's events as a reader finds them, in columns, and reduces them at `finish`: the
 * string table, tracks, per-op aggregates and steps. Format-neutral; the JSON and XSpace readers
 * both feed it. Enforces `maxEvents`, `maxTracks` and `maxStringChars`.
 */
export class TraceBuilder {
  private readonly strings: string[] = [];
  private readonly stringIds = new Map<string, number>();
  private stringChars = 0;
  private readonly tracks: TrackDraft[] = [];
  private readonly trackIds = new Map<string, number>();
  private readonly start = new Growable(f64(1024), f64);
  private readonly dur = new Growable(f64(1024), f64);
  private readonly name = new Growable(i32(1024), i32);
  private readonly op = new Growable(i32(1024), i32);
  private readonly module = new Growable(i32(1024), i32);
  private readonly track = new Growable(i32(1024), i32);
  /** Per-op aggregates by module id (+1, 0 for none) then op id: no key is built per event. */
  private readonly opStats: Map<number, OpDraft>[] = [];
  private readonly steps: TraceStep[] = [];
  ignored = 0;
  unpaired = 0;

  constructor(
    private readonly format: TraceFormat,
    private readonly limits: TraceLimits,
  ) {}

  /** The id of `s` in the string table, adding it. */
  intern(s: string): number {
    let id = this.stringIds.get(s);
    if (id === undefined) {
      this.stringChars += s.length;
      if (this.stringChars > this.limits.maxStringChars) throw new TraceTooLarge(`the trace's distinct strings pass ${this.limits.maxStringChars} characters`);
      id = this.strings.length;
      this.strings.push(s);
      this.stringIds.set(s, id);
    }
    return id;
  }

  /** The id of the track keyed `key`, creating it (named `name` of `process`, unknown kind) the first time. */
  trackOf(key: string, process: string, name: string): number {
    let id = this.trackIds.get(key);
    if (id === undefined) {
      if (this.tracks.length >= this.limits.maxTracks) throw new TraceTooLarge(`the trace has more than ${this.limits.maxTracks} tracks`);
      id = this.tracks.length;
      this.tracks.push({ kind: 'other', process, name, sortIndex: Number.NaN, order: id });
      this.trackIds.set(key, id);
    }
    return id;
  }

  /** Renames a track, sets its kind or its sort index (what the trace's metadata says). */
  describeTrack(id: number, d: { process?: string; name?: string; kind?: TrackKind; sortIndex?: number }): void {
    const t = this.tracks[id];
    if (!t) return;
    if (d.process !== undefined) t.process = d.process;
    if (d.name !== undefined) t.name = d.name;
    if (d.kind !== undefined) t.kind = d.kind;
    if (d.sortIndex !== undefined) t.sortIndex = d.sortIndex;
  }

  /** Adds one event; `op` and `module` name the HLO op it runs, when it runs one; `step` marks a step. */
  event(track: number, startUs: number, durUs: number, name: string, op?: string, module?: string, step?: number): void {
    if (this.start.length >= this.limits.maxEvents) throw new TraceTooLarge(`the trace has more than ${this.limits.maxEvents} events`);
    this.start.push(startUs);
    this.dur.push(durUs);
    const nameId = this.intern(name);
    this.name.push(nameId);
    this.track.push(track);
    const hasOp = op !== undefined && op.length > 0;
    // An XLA op's event is mostly named after it: its id is the name's.
    const opId = hasOp ? (op === name ? nameId : this.intern(op)) : -1;
    const moduleId = hasOp && module !== undefined ? this.intern(module) : -1;
    this.op.push(opId);
    this.module.push(moduleId);
    if (hasOp) {
      const byOp = (this.opStats[moduleId + 1] ??= new Map());
      const s = byOp.get(opId);
      if (s) {
        s.count += 1;
        s.totalUs += durUs;
        if (durUs < s.minUs) s.minUs = durUs;
        if (durUs > s.maxUs) s.maxUs = durUs;
      } else {
        byOp.set(opId, { module: module ?? '', op, count: 1, totalUs: durUs, minUs: durUs, maxUs: durUs });
      }
    }
    if (step !== undefined) this.steps.push({ step, name, startUs, durUs, track });
  }

  /** The reduced trace: tracks ordered by sort index, events by track then start, ops by total time. */
  finish(): ReducedTrace {
    const n = this.start.length;
    // Tracks of one process stay together, processes in the order first seen.
    const processOrder = new Map<string, number>();
    for (const t of this.tracks) if (!processOrder.has(t.process)) processOrder.set(t.process, processOrder.size);
    const order = [...this.tracks.keys()].sort((a, b) => {
      const ta = this.tracks[a]!;
      const tb = this.tracks[b]!;
      return processOrder.get(ta.process)! - processOrder.get(tb.process)! || sortKey(ta) - sortKey(tb);
    });
    const remap = new Int32Array(this.tracks.length);
    order.forEach((old, i) => (remap[old] = i));
    const tr = this.track.data;
    const st = this.start.data;
    const perm = orderEvents(n, tr, st, remap);
    const counts = new Array<number>(order.length).fill(0);
    const first = new Array<number>(order.length).fill(Number.POSITIVE_INFINITY);
    const last = new Array<number>(order.length).fill(Number.NEGATIVE_INFINITY);
    let startUs = Number.POSITIVE_INFINITY;
    let endUs = Number.NEGATIVE_INFINITY;
    let opTotalUs = 0;
    const trackColumn = new Int32Array(n);
    const du = this.dur.data;
    const opIds = this.op.data;
    for (let i = 0; i < n; i++) {
      const j = perm[i]!;
      const t = remap[tr[j]!]!;
      const s = st[j]!;
      const d = du[j]!;
      trackColumn[i] = t;
      counts[t]! += 1;
      if (s < first[t]!) first[t] = s;
      if (s + d > last[t]!) last[t] = s + d;
      if (s < startUs) startUs = s;
      if (s + d > endUs) endUs = s + d;
      if (opIds[j]! >= 0) opTotalUs += d;
    }
    this.track.release();
    // One column at a time, each read column given back as its ordered copy is made: the peak is the columns and one more.
    const columns = {
      start: this.start.takePermuted(perm), dur: this.dur.takePermuted(perm), name: this.name.takePermuted(perm),
      op: this.op.takePermuted(perm), module: this.module.takePermuted(perm), track: trackColumn,
    };
    const tracks: TraceTrack[] = order.map((old, i) => {
      const t = this.tracks[old]!;
      return {
        id: i, kind: t.kind, process: t.process, name: t.name, sortIndex: sortKey(t), events: counts[i]!,
        startUs: counts[i] ? first[i]! : 0, endUs: counts[i] ? last[i]! : 0,
      };
    });
    const ops: OpAggregate[] = this.opStats.flatMap((byOp) => [...byOp.values()])
      .map((s) => ({ module: s.module, op: s.op, count: s.count, totalUs: s.totalUs, meanUs: s.totalUs / s.count, minUs: s.minUs, maxUs: s.maxUs }))
      .sort((a, b) => b.totalUs - a.totalUs || cmp(a.module, b.module) || cmp(a.op, b.op));
    const steps = this.steps.map((s) => ({ ...s, track: remap[s.track]! })).sort((a, b) => a.startUs - b.startUs || a.step - b.step);
    return {
      summary: {
        format: this.format, events: n, tracks, startUs: n ? startUs : 0, endUs: n ? endUs : 0, opTotalUs, steps, ignored: this.ignored, unpaired: this.unpaired,
      },
      strings: this.strings,
      columns,
      ops,
    };
  }
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The events' order: by track (as `remap` orders tracks), then start, then arrival. Grouped by
 * track in one counting pass, each track's run already in arrival order; a track whose starts
 * are not in order (a reader's events mostly are, or are a few ordered runs) is merge-sorted.
 */
function orderEvents(n: number, track: Int32Array, start: Float64Array, remap: Int32Array): Uint32Array {
  const offsets = new Uint32Array(remap.length + 1);
  for (let i = 0; i < n; i++) offsets[remap[track[i]!]! + 1]! += 1;
  for (let t = 0; t < remap.length; t++) offsets[t + 1]! += offsets[t]!;
  const next = offsets.slice(0, remap.length);
  const perm = new Uint32Array(n);
  for (let i = 0; i < n; i++) perm[next[remap[track[i]!]!]!++] = i;
  let scratch: Uint32Array | undefined;
  for (let t = 0; t < remap.length; t++) {
    const from = offsets[t]!;
    const to = offsets[t + 1]!;
    let sorted = true;
    for (let k = from + 1; k < to && sorted; k++) sorted = start[perm[k - 1]!]! <= start[perm[k]!]!;
    if (!sorted) mergeSort(perm.subarray(from, to), (scratch ??= new Uint32Array(n)).subarray(0, to - from), start);
  }
  return perm;
}

/**
 * Sorts event indexes by start, stably (each run is in arrival order, so ties keep it): the runs
 * already in order are found first and merged in pairs, through `scratch` (as long as `idx`).
 */
function mergeSort(idx: Uint32Array, scratch: Uint32Array, start: Float64Array): void {
  const n = idx.length;
  const bounds: number[] = [0];
  for (let k = 1; k < n; k++) if (start[idx[k - 1]!]! > start[idx[k]!]!) bounds.push(k);
  bounds.push(n);
  let src = idx;
  let dst = scratch;
  while (bounds.length > 2) {
    const merged: number[] = [0];
    for (let r = 0; r + 1 < bounds.length; r += 2) {
      const lo = bounds[r]!;
      const mid = bounds[r + 1]!;
      const hi = r + 2 < bounds.length ? bounds[r + 2]! : mid;
      let a = lo;
      let b = mid;
      let o = lo;
      while (a < mid && b < hi) dst[o++] = start[src[b]!]! < start[src[a]!]! ? src[b++]! : src[a++]!;
      while (a < mid) dst[o++] = src[a++]!;
      while (b < hi) dst[o++] = src[b++]!;
      merged.push(hi);
    }
    bounds.splice(0, bounds.length, ...merged);
    [src, dst] = [dst, src];
  }
  if (src !== idx) idx.set(src);
}
const sortKey = (t: TrackDraft): number => (Number.isFinite(t.sortIndex) ? t.sortIndex : 1e9 + t.order);
