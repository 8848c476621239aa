import type { ModuleDiff } from '@seam/shared/ir';

/**
 * Where each line of one side went in the other, and the lines of each side that nothing matched;
 * typed arrays, so that the worker hands them over without a copy (a 25 MB dump has some 300,000
 * lines).
 */
export interface DiffLines {
  /** `aToB[lineA]`: its counterpart's line in B, 0 for none. */
  readonly aToB: Int32Array;
  readonly bToA: Int32Array;
  /** Lines of A holding an instruction only A has (removed), ascending. */
  readonly removed: Int32Array;
  /** Lines of B holding an instruction only B has (added), ascending. */
  readonly added: Int32Array;
}

/**
 * Line counterparts from a diff: matched instructions, fusions kept one to one, and paired
 * computations (their header lines); a line keeps its first counterpart.
 */
export function diffLines(d: ModuleDiff): DiffLines {
  const top = (xs: readonly number[]) => xs.reduce((m, x) => Math.max(m, x), 0);
  const aToB = new Int32Array(Math.max(d.a.lines, top(d.pairs.map((p) => p.a.line)), top(d.computations.map((c) => c.lineA))) + 2);
  const bToA = new Int32Array(Math.max(d.b.lines, top(d.pairs.map((p) => p.b.line)), top(d.computations.map((c) => c.lineB))) + 2);
  const link = (la: number, lb: number) => {
    if (la < 1 || lb < 1 || la >= aToB.length || lb >= bToA.length) return;
    if (aToB[la] === 0) aToB[la] = lb;
    if (bToA[lb] === 0) bToA[lb] = la;
  };
  for (const p of d.pairs) link(p.a.line, p.b.line);
  for (const f of d.fusionsKept) link(f.a.line, f.b.line);
  for (const c of d.computations) link(c.lineA, c.lineB);
  const lines = (xs: readonly { line: number }[]) => Int32Array.from(new Set(xs.map((x) => x.line))).sort();
  return { aToB, bToA, removed: lines(d.removed), added: lines(d.added) };
}

/** The line of the other side that `line` of `side` went to, if any. */
export function counterpart(l: DiffLines, side: 'a' | 'b', line: number): number | undefined {
  const n = (side === 'a' ? l.aToB : l.bToA)[line];
  return n === undefined || n === 0 ? undefined : n;
}

/** One row of the change list: what changed, and where in each side (1-based lines), to scroll both panes to. */
export interface DiffChange {
  readonly kind: 'spill' | 'fusion' | 'custom-call' | 'removed' | 'added' | 'op-time';
  /** `disappeared`, `formed`, `removed`… */
  readonly change: string;
  readonly label: string;
  readonly lineA?: number;
  readonly lineB?: number;
}

/** Rows the change list holds at most; the Markdown and JSON have them all. */
export const MAX_CHANGES = 400;

/**
 * The change list, most telling first: spill candidates that appeared or disappeared (largest
 * first), fusion changes, custom calls, then the instructions only one side has. Each row carries
 * the lines of both sides where it has them (a one-sided row: its counterpart's, else that of the
 * computation it sits in).
 */
export function diffChanges(d: ModuleDiff, lines: DiffLines = diffLines(d)): DiffChange[] {
  const out: DiffChange[] = [];
  const scopes = { a: new Map(d.computations.map((c) => [c.a, c.lineB])), b: new Map(d.computations.map((c) => [c.b, c.lineA])) };
  const scopeLine = (scope: string, side: 'a' | 'b') => scopes[side].get(scope);
  for (const s of d.spills) {
    if (s.change === 'kept') continue;
    const x = (s.a ?? s.b)!;
    // A one-sided spill points the other pane at its writer's counterpart, else at its computation's.
    const lineA = s.a?.line ?? (s.b ? (counterpart(lines, 'b', s.b.line) ?? scopeLine(s.b.scope, 'b')) : undefined);
    const lineB = s.b?.line ?? (s.a ? (counterpart(lines, 'a', s.a.line) ?? scopeLine(s.a.scope, 'a')) : undefined);
    out.push({ kind: 'spill', change: s.change, label: `${x.name} ${x.type}`, ...(lineA !== undefined ? { lineA } : {}), ...(lineB !== undefined ? { lineB } : {}) });
  }
  for (const f of d.fusionChanges) {
    const names = [...f.a, ...f.b].map((k) => k.name);
    out.push({ kind: 'fusion', change: f.change, label: names.slice(0, 3).join(', ') + (names.length > 3 ? ` +${names.length - 3}` : ''), ...(f.a[0] ? { lineA: f.a[0].line } : {}), ...(f.b[0] ? { lineB: f.b[0].line } : {}) });
  }
  for (const [change, list] of [['removed', d.customCalls.removed], ['added', d.customCalls.added]] as const) {
    for (const k of list) out.push({ kind: 'custom-call', change, label: `${k.kernelName ?? k.name} (${k.target})`, ...(change === 'removed' ? { lineA: k.line } : { lineB: k.line }) });
  }
  for (const i of d.removed) {
    const other = counterpart(lines, 'a', i.line) ?? scopeLine(i.scope, 'a');
    out.push({ kind: 'removed', change: 'removed', label: `${i.name} ${i.opcode} ${i.type}`, lineA: i.line, ...(other !== undefined ? { lineB: other } : {}) });
  }
  for (const i of d.added) {
    const other = counterpart(lines, 'b', i.line) ?? scopeLine(i.scope, 'b');
    out.push({ kind: 'added', change: 'added', label: `${i.name} ${i.opcode} ${i.type}`, lineB: i.line, ...(other !== undefined ? { lineA: other } : {}) });
  }
  return out;
}
