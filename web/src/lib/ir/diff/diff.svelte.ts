import type { OpTime } from '@seam/shared/ir';
import type * as Y from 'yjs';
import { readCaptures, type DocumentMeta } from '@seam/shared/model';
import type { DiffFollow, PresenterView } from '../../collab/presence';
import type { OpTimes } from '../../editor/ir/op-times';
import { defaultPair, pairProblem } from './diff-docs';
import type { DiffDigest } from './diff-digest';
import { counterpart } from './diff-lines';
import type { DiffReply, DiffRequest } from './diff-protocol';

/** The diff the view shows: being made, made (with its line maps and change list), or why not. */
export type DiffResult =
  | { readonly state: 'running'; readonly key: string }
  | { readonly state: 'ready'; readonly key: string; readonly digest: DiffDigest }
  | { readonly state: 'failed'; readonly key: string; readonly message: string };

/** A line of one side to bring into view in both panes (a change clicked, a line selected); `at` makes repeats distinct. */
export interface DiffFocus {
  readonly lineA?: number;
  readonly lineB?: number;
  /** The pane the person pointed in: it is not scrolled. */
  readonly from?: 'a' | 'b';
  readonly at: number;
}

/**
 * The room's diff view: which two HLO documents it compares (A the base), the diff of their texts
 * made in a Web Worker (it takes seconds on 25 MB dumps, which would freeze the page), and the line
 * both panes are brought to. A follower's view opens and follows the presenter's diff.
 */
export class DiffState {
  open = $state(false);
  a = $state<string | null>(null);
  b = $state<string | null>(null);
  result = $state.raw<DiffResult | null>(null);
  focus = $state.raw<DiffFocus | null>(null);
  /** The line selected in one pane (its counterpart is lit in the other). */
  selected = $state.raw<{ side: 'a' | 'b'; line: number } | null>(null);
  /** Set when the view was opened by following a presenter: it closes when theirs does. */
  followed = $state(false);
  /** Why the pair asked for (by a presenter, say) cannot be shown. */
  problem = $state<string | null>(null);
  private worker: Worker | null = null;
  private nextId = 1;
  private pending = new Map<number, string>();
  /** The key of the last diff asked of the worker. */
  private latest: string | null = null;

  /** Opens Compare on the default pair (see `defaultPair`; the room document's captures say which are versions of one program), or closes it. */
  toggle(list: readonly DocumentMeta[], doc: Y.Doc | null, current: string | null): void {
    if (this.open) return this.close();
    const p = defaultPair(list, doc ? readCaptures(doc) : [], current);
    this.show(list, p?.a ?? null, p?.b ?? null);
    this.followed = false;
  }

  close(): void {
    this.open = false;
    this.followed = false;
    this.selected = null;
  }

  /** Shows the diff of `a` against `b`, or says why it cannot (an id the room lacks, a document that is not HLO). */
  show(list: readonly DocumentMeta[], a: string | null, b: string | null): void {
    this.open = true;
    this.a = a;
    this.b = b;
    this.problem = a !== null && b !== null ? pairProblem(list, a, b) : 'This room holds fewer than two HLO documents to compare.';
  }

  /** Follows a presenter's view: their diff opens here at once, and closes when theirs does. */
  follow(list: readonly DocumentMeta[], target: PresenterView | null): void {
    const d: DiffFollow | undefined = target?.diff;
    if (d) {
      if (!this.open || this.a !== d.a || this.b !== d.b) this.show(list, d.a, d.b);
      this.followed = true;
      this.selected = d.selected ?? null;
    } else if (target && this.open && this.followed) this.close();
  }

  /** Starts the diff of the two texts unless the same one is made or being made; op times join when both sides have a trace. */
  run(list: readonly DocumentMeta[], textA: string, textB: string, times: { a?: OpTimes; b?: OpTimes }): void {
    const a = list.find((d) => d.id === this.a);
    const b = list.find((d) => d.id === this.b);
    if (!a || !b || this.problem) return;
    const key = `${a.id}\n${b.id}\n${times.a && times.b ? 'timed' : ''}`;
    if (this.result?.key === key || this.latest === key) return;
    const id = this.nextId++;
    this.pending.set(id, key);
    this.latest = key;
    // The same pair made again with op times keeps showing meanwhile; another pair shows that it runs.
    if (!this.result?.key.startsWith(`${a.id}\n${b.id}\n`)) this.result = { state: 'running', key };
    const opTimes = times.a && times.b ? { a: rowsOf(times.a), b: rowsOf(times.b) } : undefined;
    const req: DiffRequest = { id, a: textA, b: textB, kindA: a.kind, kindB: b.kind, names: { a: a.title, b: b.title }, ...(opTimes ? { opTimes } : {}) };
    this.start().postMessage(req);
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(new URL('./diff.worker.ts', import.meta.url), { type: 'module' });
    w.onmessage = (e: MessageEvent<DiffReply>) => {
      const key = this.pending.get(e.data.id);
      this.pending.delete(e.data.id);
      // Only the latest request's answer shows: an earlier pair's diff arriving late is dropped.
      if (key === undefined || key !== this.latest) return;
      if (!e.data.ok) this.result = { state: 'failed', key, message: e.data.message };
      else this.result = { state: 'ready', key, digest: e.data.digest };
    };
    w.onerror = (e) => {
      const key = this.latest ?? '';
      this.result = { state: 'failed', key, message: e.message || 'the diff worker stopped' };
    };
    this.worker = w;
    return w;
  }

  /** Brings a change into view in both panes. */
  reveal(c: { lineA?: number; lineB?: number }): void {
    this.focus = { ...(c.lineA !== undefined ? { lineA: c.lineA } : {}), ...(c.lineB !== undefined ? { lineB: c.lineB } : {}), at: Date.now() };
  }

  /** A line selected (or rested on) in one pane: the other pane scrolls to its counterpart, when it has one. */
  pick(side: 'a' | 'b', line: number): void {
    this.selected = { side, line };
    const r = this.result;
    if (r?.state !== 'ready') return;
    const other = counterpart(r.digest.lines, side, line);
    if (other === undefined) return;
    this.focus = side === 'a' ? { lineA: line, lineB: other, from: 'a', at: Date.now() } : { lineA: other, lineB: line, from: 'b', at: Date.now() };
  }

  destroy(): void {
    this.worker?.terminate();
    this.worker = null;
  }
}

function rowsOf(t: OpTimes): OpTime[] {
  return [...t].map(([op, x]) => ({ op, totalUs: x.totalUs, count: x.count }));
}
