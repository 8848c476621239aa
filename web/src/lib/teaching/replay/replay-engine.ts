import * as Y from 'yjs';
import { fromBase64 } from 'lib0/buffer';
import { annotationsMap, readAnnotation, type Annotation } from '@seam/shared/model';
import type { PresenterSample } from '@seam/shared/teaching';
import type { FetchedHistory } from './replay-api';

/** A snapshot of the replayed document is kept every this many updates: a scrub applies at most this many. */
export const CHECKPOINT_EVERY = 64;

/** The index of the first of `times` (ascending) after `t`: how many are at or before it. */
function countUpTo(times: ArrayLike<number>, t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((times[mid] ?? 0) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Rebuilds a room document at any time of its history, in a Y.Doc of its own (never the live
 * room's). Updates are decoded once; every `CHECKPOINT_EVERY` updates a snapshot of the document is
 * kept in memory (taken by `advance`, or when a seek first needs it), so seeking to any time loads the nearest snapshot before it and applies at most
 * `CHECKPOINT_EVERY` updates, and moving forward a little (playing) applies only the new ones.
 */
export class ReplayEngine {
  readonly startsAt: number;
  readonly endsAt: number;
  readonly dropped: boolean;
  /** Time of each update, ascending. */
  readonly updateTimes: Float64Array;
  private readonly updates: Uint8Array[];
  private readonly sampleTimes: Float64Array;
  private readonly samples: (PresenterSample | null)[];
  /** `checkpoints[k]`: the document after the first `k × CHECKPOINT_EVERY` updates. */
  private readonly checkpoints: Uint8Array[] = [];
  private doc = new Y.Doc();
  /** The document snapshots are taken from, and how many updates it holds. */
  private readonly walk = new Y.Doc();
  private walked = 0;
  /** The annotations of the walking document, by id, kept current as it walks. */
  private readonly current = new Map<string, Annotation>();
  /** Per update, the annotations it changed: the annotation as it became, `null` when gone (or no longer readable). */
  private readonly changes: Map<string, Annotation | null>[] = [];
  /** `annotationCheckpoints[k]`: the annotations after the first `k × CHECKPOINT_EVERY` updates. */
  private readonly annotationCheckpoints: Map<string, Annotation>[] = [];
  /** The annotation ids the update being walked touches. */
  private touched = new Set<string>();
  /** How many updates `doc` holds. */
  private applied = 0;

  constructor(h: FetchedHistory) {
    this.startsAt = h.start.startsAt;
    this.dropped = h.start.dropped;
    const ups = h.entries.filter((e) => e.type === 'update');
    this.updates = ups.map((u) => fromBase64(u.data));
    this.updateTimes = Float64Array.from(ups.map((u) => u.at));
    const samples = h.entries.filter((e) => e.type === 'presenter');
    this.sampleTimes = Float64Array.from(samples.map((s) => s.at));
    this.samples = samples.map((s) => s.view);
    this.endsAt = Math.max(h.start.endsAt, this.startsAt, h.entries.at(-1)?.at ?? 0);
    const base = fromBase64(h.start.base);
    Y.applyUpdate(this.doc, base);
    this.checkpoints.push(base);
    Y.applyUpdate(this.walk, base);
    const annotations = annotationsMap(this.walk);
    annotations.forEach((v, id) => {
      const a = readAnnotation(v);
      if (a && a.id === id) this.current.set(id, a);
    });
    this.annotationCheckpoints.push(new Map(this.current));
    annotations.observeDeep((events) => {
      for (const e of events) {
        if (e.target === annotations) for (const k of e.keys.keys()) this.touched.add(k);
        else if (typeof e.path[0] === 'string') this.touched.add(e.path[0]);
      }
    });
  }

  /** Whether every snapshot has been taken. */
  get complete(): boolean {
    return this.walked === this.updates.length;
  }

  /**
   * Takes snapshots further along, applying updates to the walking document until `upTo` updates
   * are in it or `budgetMs` has passed (whichever comes first); returns whether all are taken.
   * The first moment needs none, so a replay shows it first and takes them in slices after.
   */
  advance(upTo = this.updates.length, budgetMs = Number.POSITIVE_INFINITY): boolean {
    const until = performance.now() + budgetMs;
    const end = Math.min(upTo, this.updates.length);
    while (this.walked < end) {
      this.touched = new Set();
      Y.applyUpdate(this.walk, this.updates[this.walked] as Uint8Array);
      const changed = new Map<string, Annotation | null>();
      const annotations = annotationsMap(this.walk);
      for (const id of this.touched) {
        const a = readAnnotation(annotations.get(id));
        const kept = a && a.id === id ? a : null;
        changed.set(id, kept);
        if (kept) this.current.set(id, kept);
        else this.current.delete(id);
      }
      this.changes.push(changed);
      this.walked += 1;
      if (this.walked % CHECKPOINT_EVERY === 0) {
        this.checkpoints.push(Y.encodeStateAsUpdate(this.walk));
        this.annotationCheckpoints.push(new Map(this.current));
      }
      if ((this.walked & 15) === 0 && performance.now() >= until) break;
    }
    return this.complete;
  }

  /** The document at the end of the history (taking every snapshot first if need be); read it, never write it. */
  finalDoc(): Y.Doc {
    this.advance();
    return this.walk;
  }

  /** How many updates were committed at or before `t`. */
  countAt(t: number): number {
    return countUpTo(this.updateTimes, t);
  }

  /** The document as it was at time `t`; the same Y.Doc while only moving forward within a checkpoint's reach. */
  docAt(t: number): Y.Doc {
    const n = this.countAt(t);
    if (n >= this.applied && n - this.applied <= CHECKPOINT_EVERY) {
      for (let i = this.applied; i < n; i++) Y.applyUpdate(this.doc, this.updates[i] as Uint8Array);
    } else {
      if (this.walked < n) this.advance(n);
      const k = Math.min(Math.floor(n / CHECKPOINT_EVERY), this.checkpoints.length - 1);
      this.doc.destroy();
      this.doc = new Y.Doc();
      Y.applyUpdate(this.doc, this.checkpoints[k] as Uint8Array);
      for (let i = k * CHECKPOINT_EVERY; i < n; i++) Y.applyUpdate(this.doc, this.updates[i] as Uint8Array);
    }
    this.applied = n;
    return this.doc;
  }

  /**
   * The annotations at time `t`, oldest first (then by id), without rebuilding a document: those of
   * the nearest checkpoint before it, changed by at most `CHECKPOINT_EVERY` updates' worth of
   * annotations read once, as the walk met them. What a scrub draws.
   */
  annotationsAt(t: number): Annotation[] {
    const n = this.countAt(t);
    if (this.walked < n) this.advance(n);
    const k = Math.min(Math.floor(n / CHECKPOINT_EVERY), this.annotationCheckpoints.length - 1);
    const m = new Map(this.annotationCheckpoints[k]);
    for (let i = k * CHECKPOINT_EVERY; i < n; i++) {
      for (const [id, a] of this.changes[i] ?? []) {
        if (a) m.set(id, a);
        else m.delete(id);
      }
    }
    return [...m.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Where the presenter was at `t`: the last sample at or before it; `null` when nobody presented then. */
  presenterAt(t: number): PresenterSample | null {
    const i = countUpTo(this.sampleTimes, t);
    return i === 0 ? null : (this.samples[i - 1] ?? null);
  }

  destroy(): void {
    this.walk.destroy();
    this.doc.destroy();
  }
}
