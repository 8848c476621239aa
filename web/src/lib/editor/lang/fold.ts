import { foldService } from '@codemirror/language';
import type { EditorState, Text } from '@codemirror/state';

/** Lines scanned at most when looking for the end of a block; longer blocks fold at that point. */
const MAX_SCAN = 500_000;

function indentOf(s: string): number {
  let i = 0;
  while (i < s.length && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9)) i++;
  return i === s.length ? -1 : i;
}

/** Block ends already found, per document, so that gutter redraws do not rescan long computations. */
const ends = new WeakMap<Text, Map<number, number>>();

/**
 * Folds by indentation and braces, which all three dialects share: an HLO computation
 * (`%fused_computation {` … `}`), an MLIR function or region (`{` … `}` / `({` … `})`) and a
 * (sub-)jaxpr (`{ lambda ; … let` … `in (…) }`). A line folds when it opens a brace or the next
 * non-blank line is indented deeper; the block runs to the last deeper line, plus a closing line
 * at the same indent that starts with `}`, `)` or `in`.
 */
export function blockEnd(doc: Text, lineNo: number): number | null {
  let cache = ends.get(doc);
  if (!cache) ends.set(doc, (cache = new Map()));
  const hit = cache.get(lineNo);
  if (hit !== undefined) return hit < 0 ? null : hit;
  const line = doc.line(lineNo);
  const base = indentOf(line.text);
  let end = -1;
  if (base >= 0) {
    let last = lineNo;
    const limit = Math.min(doc.lines, lineNo + MAX_SCAN);
    for (let n = lineNo + 1; n <= limit; n++) {
      const t = doc.line(n).text;
      const ind = indentOf(t);
      if (ind < 0) continue;
      if (ind > base) {
        last = n;
        continue;
      }
      if (ind === base && /^\s*(?:\}|\)|in\b)/.test(t)) last = n;
      break;
    }
    if (last > lineNo) end = doc.line(last).to;
  }
  cache.set(lineNo, end);
  return end < 0 ? null : end;
}

/** The fold service for IR dumps (see `blockEnd`). */
export function irFolding() {
  return foldService.of((state: EditorState, from: number) => {
    const line = state.doc.lineAt(from);
    const end = blockEnd(state.doc, line.number);
    return end === null ? null : { from: line.to, to: end };
  });
}
