import { DocumentKind } from '../../model/document';
import type { HloComputation, HloInstruction } from '../hlo/ast';
import { indexHlo } from '../hlo/index';
import { LineMap } from '../hlo/line-map';
import { formatType } from '../hlo/spills';
import type { SourceRef } from '../types';
import { f64, Growable, i32 } from '../../columns/growable';
import { NONE, scopeColumns, type DiffGraphData, type DiffScope } from './graph-data';
import { outerFusion, resolve } from './side';

/** Diagnostics kept per side: enough to say why a diff is thin, not a copy of a broken file's thousands. */
const DIAGNOSTICS_KEPT = 20;

/**
 * Reads one HLO text into the diff's graph (see `DiffGraph`): built on the HLO index (sources,
 * lines, fusions, spills), which hands each instruction over as it is read. Pure; never throws on
 * user input. Runs in whichever thread is given the text: two texts can be read at once.
 */
export function readDiffGraph(text: string, kind: DocumentKind = DocumentKind.hloOpt): DiffGraphData {
  const lineMap = new LineMap(text);
  const names: string[] = [];
  const words: string[] = [];
  const wordIds = new Map<string, number>();
  const word = (s: string | undefined): number => {
    if (s === undefined) return NONE;
    let w = wordIds.get(s);
    if (w === undefined) {
      w = words.length;
      words.push(s);
      wordIds.set(s, w);
    }
    return w;
  };
  const opcodes: string[] = [];
  const opcode = new Growable(i32(0), i32);
  const type = new Growable(i32(0), i32);
  const fusionKind = new Growable(i32(0), i32);
  const target = new Growable(i32(0), i32);
  const number = new Growable(f64(0), f64);
  const comp = new Growable(i32(0), i32);
  const froms = new Growable(i32(0), i32);
  const scopes: DiffScope[] = [];
  const byScope: Map<string, number>[] = [];
  // Operands, all nodes' in one list (node i's from `starts[i]`), resolved as they are read:
  // XLA prints an operand before its users; a name not yet defined is looked up at the end.
  const raw = new Growable(i32(0), i32);
  const later: { at: number; name: string }[] = [];
  const starts = new Growable(i32(0), i32);
  /** Fusion node → the name of the computation it calls, until the computations are all known. */
  const callsName = new Map<number, string>();
  // Types repeat: one layout-free text per printed type.
  const types = new Map<string, number>();
  let open: HloComputation | undefined;
  let scopeId = -1;
  let scopeNames = new Map<string, number>();
  const add = (ins: HloInstruction, scope: HloComputation) => {
    if (open !== scope) {
      open = scope;
      scopeId = scopes.length;
      scopes.push({ name: scope.name, line: lineMap.lineAt(scope.from), isEntry: scope.isEntry, root: NONE, fusion: NONE });
      scopeNames = new Map();
      byScope.push(scopeNames);
    }
    const i = names.length;
    names.push(ins.name);
    opcodes.push(ins.opcode);
    opcode.push(word(ins.opcode));
    let t = types.get(ins.typeText);
    if (t === undefined) {
      t = word(formatType(ins.type));
      types.set(ins.typeText, t);
    }
    type.push(t);
    number.push(ins.number);
    froms.push(ins.from);
    comp.push(scopeId);
    // `ins` is one record rewritten for the next instruction: keep copies only.
    starts.push(raw.length);
    const operands = ins.operands;
    for (let k = 0; k < operands.length; k++) {
      const o = operands[k] as string;
      const at = scopeNames.get(o);
      if (at === undefined) later.push({ at: raw.length, name: o });
      raw.push(at ?? NONE);
    }
    const attrs = ins.attrs;
    fusionKind.push(attrs === undefined ? NONE : word(attrs.fusionKind));
    target.push(attrs === undefined ? NONE : word(attrs.customCallTarget));
    scopeNames.set(ins.name, i);
    const s = scopes[scopeId];
    if (s && (ins.isRoot || s.root === NONE)) s.root = i;
    if (ins.opcode === 'fusion') callsName.set(i, attrs?.calls?.[0] ?? '');
  };
  const analysis = indexHlo(text, kind, add, lineMap);
  const ix = analysis.index;
  const keys = ix.keys;
  const count = names.length;
  starts.push(raw.length);
  let misaligned = keys.length !== count;
  for (let i = 0; i < count && !misaligned; i++) misaligned = (keys[i] as (typeof keys)[number]).name !== names[i];
  const opFrom = starts.done();
  const rawOperands = raw.done();
  const compOf = comp.done();
  // Operands named before they were defined, in slot order: walk the nodes alongside.
  let node = 0;
  for (const { at, name } of later) {
    while ((opFrom[node + 1] as number) <= at) node++;
    rawOperands[at] = byScope[compOf[node] as number]?.get(name) ?? NONE;
  }
  const firstScope = new Map<string, number>();
  scopes.forEach((s, id) => {
    if (!firstScope.has(s.name)) firstScope.set(s.name, id);
  });
  const calls = new Int32Array(count).fill(NONE);
  for (const [n, callee] of callsName) {
    const id = firstScope.get(callee);
    calls[n] = id ?? NONE;
    const s = id === undefined ? undefined : scopes[id];
    if (s && s.fusion === NONE) s.fusion = n;
  }
  // The index's keys carry each line, and one source object per distinct metadata; a text the two
  // readings disagree on gets its lines looked up and no sources.
  const lines = new Int32Array(count);
  const source = new Int32Array(count).fill(NONE);
  const sources: SourceRef[] = [];
  if (misaligned) {
    for (let i = 0; i < count; i++) lines[i] = lineMap.lineAt(froms.at(i));
  } else {
    const sourceIds = new Map<SourceRef, number>();
    // Neighbours often print the same metadata (or none): the last one is checked before the map.
    let last: SourceRef | undefined;
    let lastId = NONE;
    for (let i = 0; i < count; i++) {
      const k = keys[i] as (typeof keys)[number];
      lines[i] = k.line;
      const s = k.source;
      if (s !== last) {
        let id = sourceIds.get(s);
        if (id === undefined) {
          id = sources.length;
          sources.push(s);
          sourceIds.set(s, id);
        }
        last = s;
        lastId = id;
      }
      source[i] = lastId;
    }
  }
  const numbers = number.done();
  const links = { opcode: opcodes, number: numbers, comp: compOf, scopes, opFrom, rawOperands, calls };
  const operands = new Int32Array(rawOperands.length);
  const matchable = new Uint8Array(count);
  const kernel = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    for (let k = opFrom[i] as number; k < (opFrom[i + 1] as number); k++) operands[k] = resolve(links, rawOperands[k] as number);
    const fused = scopes[compOf[i] as number]?.fusion !== NONE;
    const applied = !misaligned && keys[i]?.applied === true;
    matchable[i] = opcodes[i] !== 'fusion' && !(fused && opcodes[i] === 'parameter') && !applied ? 1 : 0;
    kernel[i] = outerFusion(links, i);
  }
  return {
    count, names, words, opcode: opcode.done(), type: type.done(), fusionKind: fusionKind.done(), target: target.done(),
    number: numbers, lines, comp: compOf, scopes: scopeColumns(scopes), opFrom, rawOperands, operands, calls, source, sources, matchable, kernel,
    module: {
      bytes: ix.bytes, lines: ix.lines, fusions: ix.fusions.length, kernels: ix.kernels ?? [], spills: ix.spills,
      diagnostics: analysis.diagnostics.filter((d) => d.severity !== 'info').slice(0, DIAGNOSTICS_KEPT), misaligned,
    },
  };
}
