import type { OpTime } from '../gate';
import type { DiffGraph } from './side';
import type { DiffOpTime, DiffTimedOp } from './types';

/** Slowest ops listed per side. */
const SLOWEST = 10;

/**
 * Each side's measured op time, from a trace of each module: the rows whose op names an instruction
 * of that module (a trace of several modules keeps only this one's ops), summed, with the slowest
 * ops and their lines. `undefined` unless both sides have rows, since a total against nothing says
 * nothing.
 */
export function diffOpTimes(a: DiffGraph, b: DiffGraph, rows: { readonly a?: readonly OpTime[]; readonly b?: readonly OpTime[] }): DiffOpTime | undefined {
  if (!rows.a || !rows.b) return undefined;
  const sa = timed(a, rows.a);
  const sb = timed(b, rows.b);
  if (sa.length === 0 || sb.length === 0) return undefined;
  const total = (xs: readonly DiffTimedOp[]) => xs.reduce((n, x) => n + x.totalUs, 0);
  return { a: total(sa), b: total(sb), ops: { a: sa.length, b: sb.length }, slowest: { a: sa.slice(0, SLOWEST), b: sb.slice(0, SLOWEST) } };
}

/** The rows naming an instruction of `g`, as places with their time, slowest first; a name's rows are summed. */
function timed(g: DiffGraph, rows: readonly OpTime[]): DiffTimedOp[] {
  const at = new Map<string, number>();
  for (let i = 0; i < g.count; i++) if (!at.has(g.name[i] as string)) at.set(g.name[i] as string, i);
  const out = new Map<string, DiffTimedOp>();
  for (const r of rows) {
    const i = at.get(r.op);
    if (i === undefined || !Number.isFinite(r.totalUs) || r.totalUs < 0) continue;
    const had = out.get(r.op);
    out.set(r.op, { name: r.op, scope: g.scopeName(i), line: g.line(i), opcode: g.opcode[i] as string, totalUs: (had?.totalUs ?? 0) + r.totalUs, count: (had?.count ?? 0) + r.count });
  }
  return [...out.values()].sort((x, y) => y.totalUs - x.totalUs || x.line - y.line);
}
