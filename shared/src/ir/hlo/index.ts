import { DocumentKind } from '../../model/document';
import type { Analysis, OutlineEntry, SpillCandidate } from '../types';
import type { HloComputation, HloInstruction, HloModule } from './ast';
import { LineMap } from './line-map';
import { INDEXED_OPERANDS, indexLists, ModuleIndex, trimLists } from './module-index';
import { parseHlo, type HloSink } from './parser';
import { byTraffic } from './spills';
import { passStepOf } from '../xla/pass-step';

export { parseHlo, type HloSink } from './parser';
export type * from './ast';

/**
 * Parses and indexes HLO text: outline, every instruction's value with bytes, decoded dots,
 * fusions with their sizes, custom-call kernels with their operands and results, the counts a pass
 * sequence compares (`xla.step`), cross-layer keys (fused instructions included) and, for optimized
 * HLO (`kind` `hlo-opt`), spill candidates ranked by traffic. Never throws on user input.
 * Each instruction is indexed as soon as it is read, with no parsed object of its own, and each
 * computation is then dropped (the spill pass reads the few it needs whole again from the text), so
 * the parse tree of a large dump never exists whole. `observe`, when given, sees every instruction
 * in text order with all its operands named (the order of `keys` and `values`); `ins` is a record
 * the parser rewrites for the next instruction, so it must not be kept. `lines`, when the caller
 * has mapped the text's lines already, is used rather than mapped again.
 */
export function indexHlo(
  text: string, kind: DocumentKind = DocumentKind.hloOpt, observe?: (ins: HloInstruction, scope: HloComputation) => void, lines: LineMap = new LineMap(text),
): Analysis {
  const lists = indexLists(lines.count);
  const withSpills = kind === DocumentKind.hloOpt;
  const outline: OutlineEntry[] = [];
  let spills: SpillCandidate[] = [];
  let moduleCount = 0;
  let current: ModuleIndex | undefined;
  const sink: HloSink = {
    // An observer reads every operand name; the index alone needs only these opcodes'.
    ...(observe ? {} : { operandsOf: INDEXED_OPERANDS }),
    // The spill pass needs the entry whole: read so the first time, it is kept, not read again.
    wholeEntry: withSpills,
    instruction(ins, scope, module) {
      observe?.(ins, scope);
      current ??= new ModuleIndex(text, lines, lists, withSpills);
      current.instruction(ins, scope, module);
    },
    computation(c, module, fromText) {
      // A computation handed over whole (the entry, the proto form) was not streamed.
      if (observe) for (const ins of c.instructions) observe(ins, c);
      current ??= new ModuleIndex(text, lines, lists, withSpills);
      current.add(c, module, fromText && !(withSpills && c.isEntry));
    },
    module(m: HloModule, count: number) {
      const done = (current ?? new ModuleIndex(text, lines, lists, withSpills)).finish(m);
      current = undefined;
      moduleCount++;
      if (m.hasHeader) {
        outline.push({ name: m.name, kind: 'module', from: m.from, to: m.to, lineFrom: lines.lineAt(m.from), lineTo: lines.lineAt(m.to), opCount: count, children: done.outline });
      } else {
        outline.push(...done.outline);
      }
      spills = spills.length === 0 ? done.spills : spills.concat(done.spills);
    },
  };
  const parsed = parseHlo(text, sink);
  trimLists(lists);
  const diagnostics = [...parsed.diagnostics];
  if (moduleCount === 0) diagnostics.push({ severity: 'info', message: 'no HLO module or computation in this text', from: 0, to: 0 });
  if (moduleCount > 1) spills.sort(byTraffic);
  const { values, dots, fusions, keys, kernels } = lists;
  const xla = { step: passStepOf(values, keys) };
  return { index: { kind, bytes: text.length, lines: lines.count, outline, values, dots, fusions, spills, keys, kernels, xla }, diagnostics };
}
