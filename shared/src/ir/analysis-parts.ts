import type { Analysis, CrossLayerKey, Diagnostic, DumpIndex, SourceRef } from './types';
import { stringTable, valueColumnsOf, valuesOf, type ValueColumnsJson } from './value-columns';

/**
 * Version of the analysis parts' shape. Stored parts of another version are recomputed from the
 * whole analysis, and the version is part of their HTTP ETag, so a cached copy never outlives it.
 */
export const ANALYSIS_PARTS_VERSION = 3;

/** The two parts a stored analysis is served in: what the views draw, and the cross-layer keys. */
export const AnalysisPart = { views: 'views', keys: 'keys' } as const;
export type AnalysisPart = (typeof AnalysisPart)[keyof typeof AnalysisPart];

/**
 * The views part (`GET …/analysis?part=views`): the index without its cross-layer keys, values in
 * columns (see `ValueColumnsJson`), and the diagnostics. Enough to draw the outline, badges, spills
 * and hovers, the custom-call kernels, and what XLA's own files say (`index.xla`: a buffer
 * assignment's allocations, a memory report, an HLO dump's pass-sequence counts).
 */
export interface AnalysisViews {
  readonly version: typeof ANALYSIS_PARTS_VERSION;
  readonly index: Omit<DumpIndex, 'values' | 'keys'> & { readonly values: ValueColumnsJson };
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * The keys part (`GET …/analysis?part=keys`): the cross-layer keys, which only linking the three
 * layers reads. `strings` holds each distinct string once; key `i` is the `KEY_FIELDS` integers at
 * `keys[KEY_FIELDS·i …]`: name, op, scope, line, from, to, source op name, source file, source
 * line, source column, fusion, applied (`1`); strings by their index in `strings`, `-1` where a
 * field is absent.
 */
export interface AnalysisKeys {
  readonly version: typeof ANALYSIS_PARTS_VERSION;
  readonly strings: readonly string[];
  readonly keys: readonly number[];
}

/** Integers per key in `AnalysisKeys.keys`. */
export const KEY_FIELDS = 12;

/** The views part of an analysis. */
export function writeAnalysisViews(a: Analysis): AnalysisViews {
  const { kind, bytes, lines, outline, dots, fusions, spills, values, kernels, xla } = a.index;
  const index = { kind, bytes, lines, outline, dots, fusions, spills, values: valueColumnsOf(values), ...(kernels ? { kernels } : {}), ...(xla ? { xla } : {}) };
  return { version: ANALYSIS_PARTS_VERSION, index, diagnostics: a.diagnostics };
}

/** The keys part of an analysis. */
export function writeAnalysisKeys(a: Analysis): AnalysisKeys {
  const strings = stringTable();
  const str = (s: string | undefined): number => (s === undefined ? -1 : strings.id(s));
  const keys: number[] = [];
  for (const k of a.index.keys) {
    const s = k.source;
    keys.push(str(k.name), str(k.op), str(k.scope), k.line, k.from, k.to, str(s.opName), str(s.file), s.line ?? -1, s.column ?? -1, str(k.fusion), k.applied ? 1 : -1);
  }
  return { version: ANALYSIS_PARTS_VERSION, strings: strings.table, keys };
}

/** The cross-layer keys of a keys part, as objects. */
export function keysOf(p: AnalysisKeys): CrossLayerKey[] {
  const { strings, keys } = p;
  const str = (id: number | undefined): string | undefined => (id === undefined || id < 0 ? undefined : strings[id]);
  const out = new Array<CrossLayerKey>(Math.floor(keys.length / KEY_FIELDS));
  for (let k = 0; k < out.length; k++) {
    const i = k * KEY_FIELDS;
    const source: { -readonly [K in keyof SourceRef]: SourceRef[K] } = {};
    const opName = str(keys[i + 6]);
    const file = str(keys[i + 7]);
    const line = keys[i + 8] ?? -1;
    const column = keys[i + 9] ?? -1;
    if (opName !== undefined) source.opName = opName;
    if (file !== undefined) source.file = file;
    if (line >= 0) source.line = line;
    if (column >= 0) source.column = column;
    const key: { -readonly [K in keyof CrossLayerKey]: CrossLayerKey[K] } = {
      name: str(keys[i]) ?? '', op: str(keys[i + 1]) ?? '', scope: str(keys[i + 2]) ?? '', line: keys[i + 3] ?? 0, source, from: keys[i + 4] ?? 0, to: keys[i + 5] ?? 0,
    };
    const fusion = str(keys[i + 10]);
    if (fusion !== undefined) key.fusion = fusion;
    if (keys[i + 11] === 1) key.applied = true;
    out[k] = key;
  }
  return out;
}

/** The whole analysis again from its two parts: `readAnalysis(writeAnalysisViews(a), writeAnalysisKeys(a))` equals `a`. */
export function readAnalysis(views: AnalysisViews, keys: AnalysisKeys): Analysis {
  const { values, ...rest } = views.index;
  return { index: { ...rest, values: valuesOf(values), keys: keysOf(keys) }, diagnostics: views.diagnostics };
}

/** Whether a parsed JSON body is a views part of this version (older cached bodies are not). */
export function isAnalysisViews(body: unknown): body is AnalysisViews {
  const b = body as Partial<AnalysisViews> | null;
  return typeof b === 'object' && b !== null && b.version === ANALYSIS_PARTS_VERSION && typeof b.index?.values?.names === 'string' && Array.isArray(b.index.values.nums) && Array.isArray(b.index.values.scopeTable) && Array.isArray(b.diagnostics);
}

/** Whether a parsed JSON body is a keys part of this version. */
export function isAnalysisKeys(body: unknown): body is AnalysisKeys {
  const b = body as Partial<AnalysisKeys> | null;
  return typeof b === 'object' && b !== null && b.version === ANALYSIS_PARTS_VERSION && Array.isArray(b.strings) && Array.isArray(b.keys) && b.keys.length % KEY_FIELDS === 0;
}
