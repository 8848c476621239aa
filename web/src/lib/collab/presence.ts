import type { Role } from '@seam/shared/model';
import { readDiffView, readHand, type DiffView, type RaisedHand } from '@seam/shared/protocol';

/** A selection inside a read-only dump, by character offsets. */
export interface DumpSelection {
  readonly docId: string;
  readonly anchor: number;
  readonly head: number;
}

/** A time range of a trace, in microseconds of the trace's own clock. */
export interface TraceSpan {
  readonly fromUs: number;
  readonly toUs: number;
}

/** What followers track of a presenter on a trace: the visible time range and the selected one. */
export interface TraceFollow extends TraceSpan {
  readonly selection: TraceSpan | null;
}

/** One pane of a presenter's split view: its document and the line at its top. */
export interface PaneFollow {
  readonly docId: string;
  readonly topLine: number;
}

/** What followers track of a presenter's split view: its panes, left to right. */
export interface SplitFollow {
  readonly panes: readonly PaneFollow[];
}

/**
 * What followers track of a presenter's diff view: the two documents compared (A the base), each
 * pane's top line, and the line selected in one pane, whose counterpart the other pane shows.
 */
export type DiffFollow = DiffView;

/** Most panes a presenter's split view may say (split view shows at most three). */
export const MAX_PRESENCE_PANES = 3;
/** Longest document id presence carries (ids are a few dozen characters). */
export const MAX_PRESENCE_ID = 200;
/** Largest line number presence carries (far past any dump a room holds). */
export const MAX_PRESENCE_LINE = 1e9;

/**
 * What the presenter's followers track: the open document, the top visible line and the selection
 * (on a trace, its time ranges; in split view, each pane's document and top line).
 */
export interface PresenterView {
  readonly docId: string | null;
  readonly topLine: number;
  readonly anchor: number;
  readonly head: number;
  readonly trace?: TraceFollow;
  readonly split?: SplitFollow;
  readonly diff?: DiffFollow;
}

/** Largest magnitude of a trace time in presence: a trace's clock may count µs since 1970 (about 1.8e15 today). */
export const MAX_PRESENCE_US = 1e17;

/** A range the presenter asks everyone to look at; `at` changes each time it is sent. */
export interface Spotlight {
  readonly docId: string;
  readonly from: number;
  readonly to: number;
  readonly at: number;
}

/** A line someone points at in a dump (the presenter's hovered line, for cross-layer highlighting). */
export interface HoveredLine {
  readonly docId: string;
  readonly line: number;
}

/**
 * One person's awareness state. `user` has the shape y-codemirror.next reads for remote cursors
 * in co-edited texts (`name`, `color`, `colorLight`); the rest is Seam's.
 */
export interface PresenceState {
  readonly user: { readonly id: string; readonly name: string; readonly color: string; readonly colorLight: string };
  readonly role: Role;
  readonly docId: string | null;
  readonly dumpSel: DumpSelection | null;
  readonly view: PresenterView | null;
  readonly spotlight: Spotlight | null;
  /** The line under this person's pointer in an IR view; sent while presenting. */
  readonly irHover?: HoveredLine | null;
  /** This person's raised hand; `null` when it is down. */
  readonly hand?: RaisedHand | null;
  /** The 1-based line of this person's cursor in the open dump; `null` elsewhere. */
  readonly line?: number | null;
  /** Whether this person follows the presenter (while someone presents). */
  readonly following?: boolean;
}

/** A participant as the UI lists them. */
export interface Participant {
  readonly clientId: number;
  readonly id: string;
  readonly name: string;
  readonly color: string;
  readonly role: Role;
  readonly docId: string | null;
  readonly self: boolean;
  /** Their raised hand, `null` when down (or malformed). */
  readonly hand: RaisedHand | null;
  /** The line of their cursor in `docId`, when they said it. */
  readonly line: number | null;
  readonly following: boolean;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** Reads one awareness state defensively: other clients may send anything. */
export function readPresence(v: unknown): PresenceState | null {
  if (!isObj(v) || !isObj(v.user)) return null;
  const u = v.user;
  if (typeof u.name !== 'string' || typeof u.color !== 'string') return null;
  const role = v.role === 'owner' || v.role === 'annotator' ? v.role : 'viewer';
  return {
    user: { id: typeof u.id === 'string' ? u.id : '', name: u.name.slice(0, 40), color: safeColor(u.color), colorLight: safeColor(u.color) + '33' },
    role,
    docId: typeof v.docId === 'string' ? v.docId : null,
    dumpSel: readSel(v.dumpSel),
    view: readView(v.view),
    spotlight: readSpotlight(v.spotlight),
    ...(readHovered(v.irHover) ? { irHover: readHovered(v.irHover) } : {}),
    hand: readHand(v.hand) ?? null,
    line: n(v.line) && v.line >= 1 && v.line <= MAX_PRESENCE_LINE ? Math.floor(v.line) : null,
    following: v.following === true,
  };
}

/** A colour safe to put in a style attribute; anything but `#rrggbb` becomes grey. */
export function safeColor(c: string): string {
  return /^#[0-9a-f]{6}$/i.test(c) ? c : '#868e96';
}

function n(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function readSel(v: unknown): DumpSelection | null {
  return isObj(v) && typeof v.docId === 'string' && n(v.anchor) && n(v.head) ? { docId: v.docId, anchor: v.anchor, head: v.head } : null;
}

function readView(v: unknown): PresenterView | null {
  if (!isObj(v) || !n(v.topLine)) return null;
  const trace = readTraceFollow(v.trace);
  const split = readSplitFollow(v.split);
  const diff = readDiffFollow(v.diff);
  return {
    docId: typeof v.docId === 'string' ? v.docId : null,
    topLine: v.topLine,
    anchor: n(v.anchor) ? v.anchor : 0,
    head: n(v.head) ? v.head : 0,
    ...(trace ? { trace } : {}),
    ...(split ? { split } : {}),
    ...(diff ? { diff } : {}),
  };
}

function readPane(v: unknown): PaneFollow | null {
  const ok = isObj(v) && typeof v.docId === 'string' && v.docId.length > 0 && v.docId.length <= MAX_PRESENCE_ID && n(v.topLine) && v.topLine >= 1 && v.topLine <= MAX_PRESENCE_LINE;
  return ok ? { docId: v.docId as string, topLine: Math.floor(v.topLine as number) } : null;
}

/** A presenter's split view; `null` unless it is 1 to 3 well-formed panes (one bad pane drops it all: a follower never shows half a layout). */
export function readSplitFollow(v: unknown): SplitFollow | null {
  if (!isObj(v) || !Array.isArray(v.panes) || v.panes.length === 0 || v.panes.length > MAX_PRESENCE_PANES) return null;
  const panes = (v.panes as unknown[]).map(readPane);
  return panes.every((p): p is PaneFollow => p !== null) ? { panes } : null;
}

/** A presenter's diff view; `null` unless it is exactly what `readDiffView` accepts (one bad field drops it whole: a follower never opens half a diff). */
export function readDiffFollow(v: unknown): DiffFollow | null {
  return readDiffView(v) ?? null;
}

function readSpan(v: unknown): TraceSpan | null {
  const ok = (x: unknown): x is number => n(x) && Math.abs(x) <= MAX_PRESENCE_US;
  return isObj(v) && ok(v.fromUs) && ok(v.toUs) && v.fromUs <= v.toUs ? { fromUs: v.fromUs, toUs: v.toUs } : null;
}

/** A presenter's trace ranges; `null` unless the visible range is a non-empty, bounded span (a bad selection is dropped). */
function readTraceFollow(v: unknown): TraceFollow | null {
  const span = readSpan(v);
  if (!isObj(v) || !span || span.toUs === span.fromUs) return null;
  return { ...span, selection: readSpan(v.selection) };
}

function readHovered(v: unknown): HoveredLine | null {
  return isObj(v) && typeof v.docId === 'string' && n(v.line) && v.line >= 1 ? { docId: v.docId, line: Math.floor(v.line) } : null;
}

function readSpotlight(v: unknown): Spotlight | null {
  return isObj(v) && typeof v.docId === 'string' && n(v.from) && n(v.to) && n(v.at) ? { docId: v.docId, from: v.from, to: v.to, at: v.at } : null;
}

/** The participant list from awareness states: self first, then by name. */
export function participants(states: ReadonlyMap<number, unknown>, selfId: number): Participant[] {
  const out: Participant[] = [];
  for (const [clientId, raw] of states) {
    const p = readPresence(raw);
    if (!p) continue;
    out.push({ clientId, id: p.user.id, name: p.user.name, color: p.user.color, role: p.role, docId: p.docId, self: clientId === selfId, hand: p.hand ?? null, line: p.line ?? null, following: p.following === true });
  }
  return out.sort((a, b) => Number(b.self) - Number(a.self) || a.name.localeCompare(b.name) || a.clientId - b.clientId);
}
