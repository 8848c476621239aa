import type { OutlineEntry } from '@seam/shared/ir';
import { bareName, type IrLookup } from '../editor/ir/lookup';

/** `  ROOT %fusion.3 = f32[…] fusion(…)` → `fusion.3`. */
const DEFINITION = /^\s*(?:ROOT\s+)?%?([\w.-]+)\s*=/;

/** The innermost computation whose lines hold `line` (1-based). */
function scopeOfLine(l: IrLookup, line: number): OutlineEntry | undefined {
  let best: OutlineEntry | undefined;
  for (const s of l.scopes) {
    if (s.lineFrom > line) break;
    if (s.lineTo >= line && (!best || s.lineTo - s.lineFrom <= best.lineTo - best.lineFrom)) best = s;
  }
  return best;
}

/** The text of 1-based `line` of a dump, read forward from the first line of the computation around it. */
export function lineTextAt(l: IrLookup, text: string, line: number): string {
  const scope = scopeOfLine(l, line);
  const known = scope && scope.lineFrom <= line;
  let at = known ? text.lastIndexOf('\n', scope.from - 1) + 1 : 0;
  for (let n = known ? scope.lineFrom : 1; n < line; n++) {
    const nl = text.indexOf('\n', at);
    if (nl < 0) return '';
    at = nl + 1;
  }
  const end = text.indexOf('\n', at);
  return text.slice(at, end < 0 ? text.length : end);
}

/**
 * The op a trace names for 1-based `line` of an optimized HLO dump (whose text is `lineText`): the
 * instruction defined there, or, inside a fused computation (its header or any instruction), the
 * fusion that calls it (the outermost, when a fusion is itself fused). Null when the line defines
 * nothing the trace could have run.
 */
export function hloOpAt(l: IrLookup, line: number, lineText: string): string | null {
  let scope = scopeOfLine(l, line);
  let op: string | null = null;
  for (let depth = 0; scope && depth < 8; depth++) {
    const name = bareName(scope.name);
    const caller = l.fusions.find((f) => bareName(f.calls) === name);
    if (!caller) break;
    op = bareName(caller.name);
    scope = scopeOfLine(l, caller.line);
  }
  if (op) return op;
  const m = DEFINITION.exec(lineText);
  return m ? m[1]! : null;
}
