import { DocumentKind } from '../../model/document';
import type { Analysis, CrossLayerKey, Diagnostic, DotInfo, FusionInfo, OutlineEntry, SourceRef, SpillCandidate, ValueInfo } from '../types';
import type { HloComputation, HloMetadata, HloModule, HloStackFrames } from './ast';
import { collectDots } from './dots';
import { ModuleGraph } from './graph';
import { LineMap } from './line-map';
import { parseHlo } from './parser';
import { byTraffic, findSpills } from './spills';
import { resolveFrame } from './stack-frames';

export { parseHlo } from './parser';
export type * from './ast';

const NO_SOURCE: SourceRef = Object.freeze({});

/**
 * Parses and indexes HLO text: outline, every instruction's value with bytes, decoded dots,
 * fusions with their sizes, cross-layer keys (fused instructions included) and, for optimized
 * HLO (`kind` `hlo-opt`), spill candidates ranked by traffic. Never throws on user input.
 * Fused computations are released from the parse tree as soon as they are indexed.
 */
export function indexHlo(text: string, kind: DocumentKind = DocumentKind.hloOpt): Analysis {
  const parsed = parseHlo(text);
  const lines = new LineMap(text);
  const diagnostics: Diagnostic[] = [...parsed.diagnostics];
  const outline: OutlineEntry[] = [];
  const values: ValueInfo[] = [];
  const dots: DotInfo[] = [];
  const fusions: FusionInfo[] = [];
  const keys: CrossLayerKey[] = [];
  let spills: SpillCandidate[] = [];
  for (const module of parsed.ast.modules) {
    const graph = new ModuleGraph(module);
    const children = module.computations.map((c) => outlineOf(c, graph, lines));
    if (module.hasHeader) {
      outline.push({ name: module.name, kind: 'module', from: module.from, to: module.to, lineFrom: lines.lineAt(module.from), lineTo: lines.lineAt(module.to), opCount: module.computations.length, children });
    } else {
      outline.push(...children);
    }
    // Instructions that print the same metadata share one parsed metadata object, hence one source.
    const sources = new Map<HloMetadata, SourceRef>();
    for (const scope of module.computations) {
      indexComputation(scope, graph, module, lines, values, fusions, keys, sources);
      collectDots(graph, scope, lines, dots);
      graph.release(scope);
    }
    if (kind === DocumentKind.hloOpt) {
      const found = findSpills(graph, lines);
      spills = spills.length === 0 ? found : spills.concat(found);
    }
  }
  if (parsed.ast.modules.length === 0) diagnostics.push({ severity: 'info', message: 'no HLO module or computation in this text', from: 0, to: 0 });
  if (parsed.ast.modules.length > 1) spills.sort(byTraffic);
  return { index: { kind, bytes: text.length, lines: lines.count, outline, values, dots, fusions, spills, keys }, diagnostics };
}

function outlineOf(c: HloComputation, graph: ModuleGraph, lines: LineMap): OutlineEntry {
  const caller = graph.fusionCaller.get(c.name);
  return {
    name: c.name, kind: caller ? 'fusion' : 'computation', from: c.from, to: c.to,
    lineFrom: lines.lineAt(c.from), lineTo: lines.lineAt(Math.max(c.from, c.to - 1)), opCount: c.instructions.length,
    ...(caller?.attrs?.fusionKind ? { fusionKind: caller.attrs.fusionKind } : {}),
    ...(c.isEntry ? { isEntry: true } : {}),
  };
}

function indexComputation(
  scope: HloComputation, graph: ModuleGraph, module: HloModule, lines: LineMap,
  values: ValueInfo[], fusions: FusionInfo[], keys: CrossLayerKey[], sources: Map<HloMetadata, SourceRef>,
): void {
  const fusion = graph.fusionCaller.get(scope.name)?.name;
  for (const ins of scope.instructions) {
    const line = lines.lineAt(ins.from);
    values.push({ name: ins.name, scope: scope.name, line, type: ins.typeText, bytes: ins.bytes, from: ins.from, to: ins.to });
    const m = ins.metadata;
    let source = m === undefined ? NO_SOURCE : sources.get(m);
    if (source === undefined) {
      source = sourceOf(m, module.stackFrames);
      if (m) sources.set(m, source);
    }
    keys.push(fusion === undefined
      ? { name: ins.name, op: ins.opcode, scope: scope.name, line, source, from: ins.from, to: ins.to }
      : { name: ins.name, op: ins.opcode, scope: scope.name, line, source, fusion, from: ins.from, to: ins.to });
    if (ins.opcode === 'fusion') {
      const calls = ins.attrs?.calls?.[0] ?? '';
      let inputBytes = 0;
      for (const o of ins.operands) inputBytes += graph.lookup(scope, o)?.bytes ?? 0;
      fusions.push({
        name: ins.name, scope: scope.name, line, from: ins.from, to: ins.to, kind: ins.attrs?.fusionKind ?? '', calls,
        fusedOps: graph.opCounts.get(calls) ?? 0,
        inputBytes, outputBytes: ins.bytes,
      });
    }
  }
}

function sourceOf(m: HloMetadata | undefined, frames: HloStackFrames): SourceRef {
  if (!m) return NO_SOURCE;
  let file = m.sourceFile;
  let line = m.sourceLine;
  if (m.stackFrameId !== undefined && (file === undefined || line === undefined)) {
    const f = resolveFrame(frames, m.stackFrameId);
    file ??= f?.file;
    line ??= f?.line;
  }
  const out: { opName?: string; file?: string; line?: number } = {};
  if (m.opName !== undefined) out.opName = m.opName;
  if (file !== undefined) out.file = file;
  if (line !== undefined) out.line = line;
  return out;
}
