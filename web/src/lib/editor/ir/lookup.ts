import type { DotInfo, DumpIndex, FusionInfo, OutlineEntry, Span, SpillCandidate, ValueInfo } from '@seam/shared/ir';
import { ValueTable, valueColumns, type ValueColumns } from './value-table';

/**
 * What the editor needs of a dump's index, as the analysis worker posts it: the index without its
 * cross-layer keys (only the worker links layers), and with its values in columns.
 */
export interface ViewIndex extends Omit<DumpIndex, 'values' | 'keys'> {
  readonly values: ValueColumns;
}

/** A full index in the editor's form (see `ViewIndex`). */
export function toViewIndex(index: DumpIndex): ViewIndex {
  const { kind, bytes, lines, outline, dots, fusions, spills } = index;
  return { kind, bytes, lines, outline, dots, fusions, spills, values: valueColumns(index.values) };
}

/**
 * Lookups over one dump's index for the editor: values by name, computations by name, and the
 * dots, fusions and spills sorted by offset so that "what is at this position" is a binary search.
 * Names are compared without their sigil: `%fusion.3`, `fusion.3` and `@main` → `fusion.3`, `main`.
 */
export interface IrLookup {
  readonly index: ViewIndex;
  /** Values by bare name, built on first use. */
  readonly values: ValueTable;
  /** Computations, functions and (sub-)jaxprs, outermost first, by bare name. */
  readonly blocks: ReadonlyMap<string, OutlineEntry>;
  /** Every outline entry, flattened, sorted by `from`. */
  readonly scopes: readonly OutlineEntry[];
  readonly dots: readonly DotInfo[];
  readonly fusions: readonly FusionInfo[];
  readonly spills: readonly SpillCandidate[];
  /** Fusion instructions by bare name. */
  readonly fusionByName: ReadonlyMap<string, FusionInfo>;
}

/** `%fusion.3` → `fusion.3`, `@main` → `main`, `%0#1` → `0`. */
export function bareName(name: string): string {
  const s = name.replace(/^[%@^]/, '');
  const hash = s.indexOf('#');
  return hash > 0 ? s.slice(0, hash) : s;
}

function bySpan<T extends Span>(list: readonly T[]): T[] {
  return [...list].sort((a, b) => a.from - b.from || b.to - a.to);
}

/** Builds the lookups once per index; values are indexed by name only when first asked for. */
export function buildLookup(full: DumpIndex | ViewIndex): IrLookup {
  const index = 'keys' in full ? toViewIndex(full) : full;
  const values = new ValueTable(index.values, bareName);
  const blocks = new Map<string, OutlineEntry>();
  const scopes: OutlineEntry[] = [];
  const walk = (entries: readonly OutlineEntry[]) => {
    for (const e of entries) {
      scopes.push(e);
      const k = bareName(e.name);
      if (!blocks.has(k)) blocks.set(k, e);
      if (e.children) walk(e.children);
    }
  };
  walk(index.outline);
  return {
    index, values, blocks, scopes: bySpan(scopes),
    dots: bySpan(index.dots), fusions: bySpan(index.fusions), spills: bySpan(index.spills),
    fusionByName: new Map(index.fusions.map((f) => [bareName(f.name), f])),
  };
}

/** The span of sorted `list` that contains `pos` (the last one starting at or before it), if any. */
export function spanAt<T extends Span>(list: readonly T[], pos: number): T | undefined {
  let lo = 0;
  let hi = list.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid] as T).from <= pos) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  for (let i = found; i >= 0 && i > found - 4; i--) {
    const s = list[i] as T;
    if (s.from <= pos && pos <= s.to) return s;
  }
  return undefined;
}

/** The innermost computation, function or jaxpr around `pos`. */
export function scopeAt(l: IrLookup, pos: number): OutlineEntry | undefined {
  let best: OutlineEntry | undefined;
  for (const s of l.scopes) {
    if (s.from > pos) break;
    if (s.to >= pos && (!best || s.to - s.from <= best.to - best.from)) best = s;
  }
  return best;
}

/** The value `name` as seen from `pos`: the one defined in the enclosing scope, else the only one. */
export function valueAt(l: IrLookup, name: string, pos: number): ValueInfo | undefined {
  const list = l.values.get(bareName(name));
  if (!list || list.length === 0) return undefined;
  if (list.length === 1) return list[0];
  const scope = scopeAt(l, pos);
  if (scope) {
    const bare = bareName(scope.name);
    const inScope = list.filter((v) => bareName(v.scope) === bare);
    if (inScope.length > 0) return inScope.reduce((best, v) => (v.from <= pos && v.from > best.from ? v : best), inScope[0] as ValueInfo);
  }
  return list[0];
}

/** Characters a name may hold in any dialect: `%fusion.3`, `%0#1`, `@main`, `convert-1`, `a`. */
const NAME_CHAR = /[\w.\-$#%@]/;

/** The name-like word around `pos` of `line` (offset `lineFrom`), with its document range. */
export function wordAt(line: string, lineFrom: number, pos: number): { text: string; from: number; to: number } | null {
  let a = pos - lineFrom;
  let b = a;
  while (a > 0 && NAME_CHAR.test(line[a - 1] ?? '')) a--;
  while (b < line.length && NAME_CHAR.test(line[b] ?? '')) b++;
  let text = line.slice(a, b);
  // `see %fusion.3.` in prose: a trailing dot or dash is not part of the name.
  while (text.endsWith('.') || text.endsWith('-')) {
    text = text.slice(0, -1);
    b--;
  }
  if (!text || !/[A-Za-z_\d]/.test(text)) return null;
  return { text, from: lineFrom + a, to: lineFrom + b };
}

/** Index of the first span of sorted `list` that starts at or after `pos`. */
export function firstFrom<T extends Span>(list: readonly T[], pos: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid] as T).from < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
