import { typeAt, valueBytes } from '../shape';
import type { LoopInfo, SpillCandidate, ValueType } from '../types';
import type { HloComputation, HloInstruction } from './ast';
import type { ModuleGraph } from './graph';
import type { LineMap } from './line-map';
import { loopFacts, loopsOf, type LoopFacts } from './loops';

/**
 * Instructions that launch no kernel and move no data: they pass values through (bitcast, tuple,
 * get-tuple-element, control flow) or name them (parameter, constant).
 */
const PLUMBING = new Set([
  'parameter', 'constant', 'bitcast', 'tuple', 'get-tuple-element', 'while', 'conditional', 'call',
  'after-all', 'add-dependency', 'opt-barrier', 'optimization-barrier', 'domain',
]);

/** `copy-done`, `all-reduce-done`, `async-done`, `async-update`: they finish a kernel started earlier. */
function finishesAsync(opcode: string): boolean {
  return opcode.endsWith('-done') || opcode.endsWith('-update');
}

interface Producer {
  readonly ins: HloInstruction;
  readonly scope: HloComputation;
  readonly path: readonly number[];
}

interface Record {
  readonly producer: Producer;
  /** Distinct consuming kernels, in order. */
  readonly consumers: string[];
  readonly bytes: number;
  readonly type: string;
}

/**
 * Values that one kernel writes to memory and other kernels read back, in the kernel-level
 * computations of an optimized module (entry, while bodies and conditions, branches, `call`
 * targets). Each operand of a kernel is followed through bitcasts, tuples, get-tuple-element,
 * parameters (to the caller's operands, and for while bodies also to the body's root, the loop-carried
 * value) and control-flow results (to the roots of bodies and branches) to the kernels that wrote
 * it. Bytes are those of the value read; traffic is bytes × (1 write + 1 read per consuming kernel),
 * times the trips of the while loops the producer runs in (`loops`: their known trip counts), except
 * for a producer that updates a loop-carried buffer in place (a dynamic-update-slice, or a fusion
 * whose root is one). Ranked by traffic, then bytes, then name.
 */
export function findSpills(graph: ModuleGraph, lines: LineMap, loops: LoopFacts = loopFacts()): SpillCandidate[] {
  const direct = new Map<HloInstruction, Record>();
  const byPath = new Map<string, Record>();
  const found: Producer[] = [];
  for (const scope of graph.kernelScopes()) {
    for (const ins of scope.instructions) {
      if (PLUMBING.has(ins.opcode) || finishesAsync(ins.opcode)) continue;
      const ops = ins.operands;
      for (let i = 0; i < ops.length; i++) {
        const operand = ops[i] as string;
        const read = graph.lookup(scope, operand);
        if (!read) continue;
        if (!PLUMBING.has(read.opcode)) {
          // The common case: a kernel reads another kernel's result directly.
          const r = direct.get(read);
          if (r) {
            addConsumer(r, ins.name);
          } else if (read !== ins) {
            direct.set(read, { producer: { ins: read, scope, path: NO_PATH }, consumers: [ins.name], bytes: read.bytes, type: read.typeText });
          }
          continue;
        }
        found.length = 0;
        resolve(graph, scope, operand, NO_PATH, found, new Set());
        for (const p of found) note(direct, byPath, p, ins.name, read);
      }
    }
  }
  const out: SpillCandidate[] = [];
  const loopOf = loopsOf(graph, loops);
  for (const r of direct.values()) out.push(candidate(r, lines, loopOf, loops));
  for (const r of byPath.values()) out.push(candidate(r, lines, loopOf, loops));
  return out.sort(byTraffic);
}

function candidate(r: Record, lines: LineMap, loopOf: (scope: string) => LoopInfo | undefined, loops: LoopFacts): SpillCandidate {
  const { ins, scope, path } = r.producer;
  let loop = loopOf(scope.name);
  if (loop && updatesInPlace(ins, loops)) loop = { ...loop, inPlace: true };
  const trips = loop && !loop.inPlace ? (loop.trips ?? 1) : 1;
  const c: SpillCandidate = {
    producer: ins.name, scope: scope.name, line: lines.lineAt(ins.from), from: ins.from, to: ins.to,
    type: r.type, bytes: r.bytes, consumers: r.consumers, traffic: r.bytes * (1 + r.consumers.length) * trips,
  };
  const withPath = path.length > 0 ? { ...c, outputIndex: path } : c;
  return loop ? { ...withPath, loop } : withPath;
}

/** A dynamic-update-slice, or a fusion whose root is one: it writes a slice of its buffer in place. */
function updatesInPlace(ins: HloInstruction, loops: LoopFacts): boolean {
  if (ins.opcode === 'dynamic-update-slice') return true;
  return ins.opcode === 'fusion' && loops.updateRoots.has(ins.attrs?.calls?.[0] ?? '');
}

/** Largest traffic first, then largest bytes, then by name so the order is stable. */
export function byTraffic(a: SpillCandidate, b: SpillCandidate): number {
  return b.traffic - a.traffic || b.bytes - a.bytes || (a.producer < b.producer ? -1 : a.producer > b.producer ? 1 : 0);
}

/**
 * Records one consuming kernel. Each kernel's operands are visited together, so a kernel that
 * reads a value twice (`add(%x, %x)`) is always the last one recorded: checking the last entry
 * keeps consumers distinct in constant time, even for fusions with hundreds of operands.
 */
function addConsumer(r: Record, consumer: string): void {
  if (r.consumers[r.consumers.length - 1] !== consumer) r.consumers.push(consumer);
}

const NO_PATH: readonly number[] = [];

function note(direct: Map<HloInstruction, Record>, byPath: Map<string, Record>, p: Producer, consumer: string, read: HloInstruction): void {
  if (p.ins.name === consumer) return;
  const key = p.path.length === 0 ? undefined : `${p.scope.name}\u0000${p.ins.name}\u0000${p.path.join(',')}`;
  let r = key === undefined ? direct.get(p.ins) : byPath.get(key);
  if (!r) {
    const element = p.path.length === 0 ? p.ins.type : typeAt(p.ins.type, p.path);
    const bytes = element ? valueBytes(element) : read.bytes;
    const type = p.path.length === 0 ? p.ins.typeText : element ? formatType(element) : read.typeText;
    r = { producer: p, consumers: [], bytes, type };
    if (key === undefined) direct.set(p.ins, r);
    else byPath.set(key, r);
  }
  addConsumer(r, consumer);
}

/** Prints a type without layout: `f32[8,8]`, `(f32[2], s32[])`. */
export function formatType(t: ValueType): string {
  if ('tuple' in t) return `(${t.tuple.map(formatType).join(', ')})`;
  return `${t.dtype}[${t.dims.join(',')}]`;
}

/** Finds the kernels that wrote element `path` of value `name` in `scope`. */
function resolve(graph: ModuleGraph, scope: HloComputation, name: string | undefined, path: readonly number[], out: Producer[], seen: Set<string>): void {
  if (name === undefined) return;
  const ins = graph.lookup(scope, name);
  if (!ins) return;
  const key = `${scope.name}\u0000${name}\u0000${path.join(',')}`;
  if (seen.has(key)) return;
  seen.add(key);
  switch (ins.opcode) {
    case 'parameter':
      for (const site of graph.callSites.get(scope.name) ?? []) {
        const c = site.caller;
        if (site.role === 'call') resolve(graph, site.scope, c.operands[ins.number], path, out, seen);
        else if (site.role === 'branch') resolve(graph, site.scope, c.operands[site.index + 1], path, out, seen);
        else {
          resolve(graph, site.scope, c.operands[0], path, out, seen);
          resolveRoot(graph, c.attrs?.body, path, out, seen);
        }
      }
      return;
    case 'constant':
    case 'after-all':
      return;
    case 'bitcast':
    case 'domain':
    case 'add-dependency':
    case 'opt-barrier':
    case 'optimization-barrier':
      resolve(graph, scope, ins.operands[0], path, out, seen);
      return;
    case 'tuple':
      if (path.length > 0) resolve(graph, scope, ins.operands[path[0] ?? 0], path.slice(1), out, seen);
      else for (const o of ins.operands) resolve(graph, scope, o, [], out, seen);
      return;
    case 'get-tuple-element':
      resolve(graph, scope, ins.operands[0], [ins.number, ...path], out, seen);
      return;
    case 'while':
      resolveRoot(graph, ins.attrs?.body, path, out, seen);
      return;
    case 'call':
      resolveRoot(graph, ins.attrs?.toApply ?? ins.attrs?.calls?.[0], path, out, seen);
      return;
    case 'conditional':
      for (const b of ins.attrs?.branches ?? []) resolveRoot(graph, b, path, out, seen);
      return;
    default:
      out.push({ ins, scope, path });
  }
}

/** Follows element `path` of what computation `name` returns, from its root. */
function resolveRoot(graph: ModuleGraph, name: string | undefined, path: readonly number[], out: Producer[], seen: Set<string>): void {
  const callee = name === undefined ? undefined : graph.computations.get(name);
  const r = callee && graph.root(callee);
  if (callee && r) resolve(graph, callee, r.name, path, out, seen);
}
