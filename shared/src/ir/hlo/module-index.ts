import type { CrossLayerKey, DotInfo, FusionInfo, KernelInfo, KernelValue, OutlineEntry, SourceRef, SpillCandidate, ValueInfo, ValueType } from '../types';
import type { HloComputation, HloInstruction, HloMetadata, HloModule, HloStackFrames } from './ast';
import { collectDots, type ScopeLookup } from './dots';
import { ModuleGraph } from './graph';
import type { LineMap } from './line-map';
import { parseComputationAt } from './parser';
import { copyInstruction } from './instruction';
import { findSpills, formatType } from './spills';
import { valueBytes } from '../shape';
import { internalized } from './scanner';
import { resolveFrame } from './stack-frames';
import { knownTripCount, loopFacts } from './loops';

const NO_SOURCE: SourceRef = Object.freeze({});

/** The opcodes whose operands the index reads: a fusion's and a custom-call kernel's input bytes, a dot's operand shapes. */
export const INDEXED_OPERANDS: ReadonlySet<string> = new Set(['fusion', 'dot', 'custom-call']);

/**
 * The index's flat lists, shared by every module of one text. `values` and `keys` (one each per
 * instruction) are sized ahead and filled up to `count`, so that a dump of 10^5 instructions does
 * not copy them a dozen times as they grow; `trimLists` ends them.
 */
export interface IndexLists {
  readonly values: ValueInfo[];
  readonly keys: CrossLayerKey[];
  /** How many values, and keys, are filled in. */
  count: number;
  readonly dots: DotInfo[];
  readonly fusions: FusionInfo[];
  readonly kernels: KernelInfo[];
}

/**
 * Lists for about `capacity` instructions (more still fit: the lists grow past it). A text's line
 * count is the usual bound, since XLA prints one instruction per line.
 */
export function indexLists(capacity: number): IndexLists {
  // Sized by `new Array`, which leaves holes until filled; `trimLists` cuts the unfilled end.
  return { values: new Array<ValueInfo>(capacity), keys: new Array<CrossLayerKey>(capacity), count: 0, dots: [], fusions: [], kernels: [] };
}

/** Cuts `values` and `keys` to the instructions indexed (in place: the unfilled end is dropped, nothing copied). */
export function trimLists(lists: IndexLists): void {
  lists.values.length = lists.count;
  lists.keys.length = lists.count;
}

/** What one module keeps of a computation once it is indexed. */
interface Indexed {
  readonly name: string;
  readonly isEntry: boolean;
  readonly from: number;
  readonly to: number;
  readonly count: number;
  /** Its instructions' keys in `IndexLists.keys`: `[keyFrom, keyTo)`. */
  readonly keyFrom: number;
  readonly keyTo: number;
  /**
   * Kept only when spills are wanted and the computation is not to be read again from the text
   * (the proto form, or the entry, read whole the first time): the spill pass needs the
   * kernel-level computations whole.
   */
  readonly kept: HloComputation | undefined;
}

/** What is known of a computation while its instructions are indexed. */
interface OpenScope {
  readonly scope: HloComputation;
  /**
   * Its name, internalized: the values and keys of all its instructions hold it, and, an old
   * string in objects V8 allocates old, it costs the scavenges nothing.
   */
  readonly name: string;
  readonly keyFrom: number;
  ops: number;
  calls: boolean;
  /** The fusion calling it, when read before it. */
  readonly fusion: string | undefined;
  /** How many of its instructions' types are in `ModuleIndex.types`. */
  typeCount: number;
  /** Its fusions and dots, indexed when it ends: their operands may be defined later in it. */
  readonly later: HloInstruction[];
}

type MutableKey = { -readonly [K in keyof CrossLayerKey]: CrossLayerKey[K] };
type MutableFusion = { -readonly [K in keyof FusionInfo]: FusionInfo[K] };

/**
 * Indexes one module computation by computation, as the parser hands them over, so the parse tree
 * of a large dump never exists whole. What only a later computation can tell (which fusion calls a
 * fused computation, printed after it; how many ops a callee has) is patched in when it is known
 * or when the module ends; the spill pass runs at the end over compact copies.
 */
export class ModuleIndex {
  private readonly computations: Indexed[] = [];
  private readonly byName = new Map<string, Indexed[]>();
  /**
   * Fused computation name → the name and kind of the first fusion that calls it (not the
   * instruction, whose operand names would then outlive its computation).
   */
  private readonly fusionCaller = new Map<string, { readonly name: string; readonly kind: string | undefined }>();
  /** Reducers, comparators and combiners: computations named by `to_apply` of other than `call`. */
  private readonly applied = new Set<string>();
  /** Trip counts of whiles and in-place update roots, for the spill pass. */
  private readonly loops = loopFacts();
  /** Names of while bodies and conditions, branches and `call` targets. */
  private readonly callTargets = new Set<string>();
  /** Computations that hold a while, conditional or call. */
  private readonly callScopes = new Set<Indexed>();
  private readonly opCounts = new Map<string, number>();
  private readonly fusions: MutableFusion[] = [];
  /** Instructions that print the same metadata share one parsed metadata object, hence one source. */
  private readonly sources = new Map<HloMetadata, SourceRef>();
  private framesAtStart = -1;
  /** The computation whose instructions are being indexed. */
  private open: OpenScope | undefined;
  /**
   * The open computation's instructions' types, in order (values hold their names and bytes); one
   * array reused for every computation, filled up to `OpenScope.typeCount`.
   */
  private readonly types: ValueType[] = [];

  constructor(
    private readonly text: string, private readonly lines: LineMap, private readonly lists: IndexLists, private readonly withSpills: boolean,
  ) {}

  /**
   * Indexes one instruction of `scope` as it is read (`ins` is not kept: the fusions and dots
   * among them are copied, to finish when the computation ends). `add` ends the computation.
   */
  instruction(ins: HloInstruction, scope: HloComputation, module: HloModule): void {
    const open = this.open?.scope === scope ? this.open : this.begin(scope, module);
    const lists = this.lists;
    if (ins.opcode !== 'parameter') open.ops++;
    if (ins.isRoot && ins.opcode === 'dynamic-update-slice') this.loops.updateRoots.add(open.name);
    // Every instruction that calls a computation names it in an attribute.
    if (ins.attrs !== undefined && this.noteCalls(ins)) open.calls = true;
    const line = this.lines.lineAt(ins.from);
    const at = lists.count++;
    lists.values[at] = { name: ins.name, scope: open.name, line, type: ins.typeText, bytes: ins.bytes, from: ins.from, to: ins.to };
    const source = this.sourceOf(ins.metadata, module.stackFrames);
    // Every key has a `fusion` slot, filled here or once the fusion that calls this computation is read.
    const key: MutableKey = { name: ins.name, op: ins.opcode, scope: open.name, line, source, fusion: open.fusion, from: ins.from, to: ins.to };
    lists.keys[at] = key;
    this.types[open.typeCount++] = ins.type;
    if (ins.opcode === 'fusion' || ins.opcode === 'custom-call' || (ins.opcode === 'dot' && ins.attrs?.dot)) open.later.push(copyInstruction(ins));
  }

  /**
   * Ends one computation of `module`: indexes its instructions first when they come whole (none
   * were handed to `instruction`), and keeps only what the module's end needs of it: nothing of its
   * instructions when `fromText` says it can be read again (false keeps it whole, for a computation
   * whose every operand was named).
   */
  add(scope: HloComputation, module: HloModule, fromText: boolean): void {
    if (this.open?.scope !== scope) {
      this.begin(scope, module);
      for (const ins of scope.instructions) this.instruction(ins, scope, module);
    }
    const open = this.open as OpenScope;
    this.open = undefined;
    const end = this.lists.count;
    this.opCounts.set(scope.name, open.ops);
    // A fusion of this computation that calls it: read before its keys in text, now after them.
    const caller = open.fusion === undefined ? this.fusionCaller.get(scope.name)?.name : undefined;
    const indexed: Indexed = {
      name: scope.name, isEntry: scope.isEntry, from: scope.from, to: scope.to, count: end - open.keyFrom, keyFrom: open.keyFrom, keyTo: end,
      kept: this.withSpills && !fromText ? scope : undefined,
    };
    if (caller !== undefined) this.setFusion(indexed, caller);
    const lookup = new ScopeNames(this.lists.values, this.types, open.keyFrom, open.typeCount);
    const dots: HloInstruction[] = [];
    for (const ins of open.later) {
      if (ins.opcode === 'fusion') this.addFusion(ins, scope, this.lines.lineAt(ins.from), lookup);
      else if (ins.opcode === 'custom-call') this.lists.kernels.push(kernelOf(ins, scope.name, this.lines.lineAt(ins.from), lookup));
      else dots.push(ins);
    }
    collectDots(lookup, scope.name, dots, this.lines, this.lists.dots);
    this.computations.push(indexed);
    const same = this.byName.get(scope.name);
    if (same) same.push(indexed);
    else this.byName.set(scope.name, [indexed]);
    if (open.calls) this.callScopes.add(indexed);
  }

  private begin(scope: HloComputation, module: HloModule): OpenScope {
    if (this.framesAtStart < 0) this.framesAtStart = frameCount(module.stackFrames);
    const open: OpenScope = {
      scope, name: internalized(scope.name), keyFrom: this.lists.count, ops: 0, calls: false, fusion: this.fusionCaller.get(scope.name)?.name, typeCount: 0, later: [],
    };
    this.open = open;
    return open;
  }

  /** Records the computations `ins` calls; true when it is a while, conditional or call. */
  private noteCalls(ins: HloInstruction): boolean {
    switch (ins.opcode) {
      case 'fusion':
        for (const c of ins.attrs?.calls ?? []) {
          if (this.fusionCaller.has(c)) continue;
          // Internalized, like scope names: it is written into the keys of every instruction of `c`.
          const name = internalized(ins.name);
          this.fusionCaller.set(c, { name, kind: ins.attrs?.fusionKind });
          for (const callee of this.byName.get(c) ?? []) this.setFusion(callee, name);
        }
        return false;
      case 'while': {
        this.addTarget(ins.attrs?.body);
        this.addTarget(ins.attrs?.condition);
        const trips = knownTripCount(this.text.slice(ins.from, ins.to));
        if (trips !== undefined) this.loops.tripCounts.set(ins.name, trips);
        return true;
      }
      case 'conditional':
        for (const b of ins.attrs?.branches ?? []) this.addTarget(b);
        return true;
      case 'call':
        this.addTarget(ins.attrs?.toApply ?? ins.attrs?.calls?.[0]);
        return true;
      default:
        if (ins.attrs?.toApply !== undefined) this.applied.add(ins.attrs.toApply);
        return false;
    }
  }

  private addTarget(name: string | undefined): void {
    if (name) this.callTargets.add(name);
  }

  private setFusion(callee: Indexed, fusion: string): void {
    const keys = this.lists.keys as MutableKey[];
    for (let i = callee.keyFrom; i < callee.keyTo; i++) (keys[i] as MutableKey).fusion = fusion;
  }

  private addFusion(ins: HloInstruction, scope: HloComputation, line: number, lookup: ScopeNames): void {
    let inputBytes = 0;
    for (const o of ins.operands) inputBytes += lookup.get(o)?.bytes ?? 0;
    const info: MutableFusion = {
      name: ins.name, scope: scope.name, line, from: ins.from, to: ins.to, kind: ins.attrs?.fusionKind ?? '', calls: ins.attrs?.calls?.[0] ?? '',
      fusedOps: 0, inputBytes, outputBytes: ins.bytes,
    };
    this.fusions.push(info);
    this.lists.fusions.push(info);
  }

  private sourceOf(m: HloMetadata | undefined, frames: HloStackFrames): SourceRef {
    if (m === undefined) return NO_SOURCE;
    let source = this.sources.get(m);
    if (source === undefined) {
      source = sourceOf(m, frames);
      this.sources.set(m, source);
    }
    return source;
  }

  /**
   * Ends the module: fills in what only its end tells (fused op counts, sources when stack frames
   * were printed after computations), and returns its outline entries and, when wanted, its spills.
   */
  finish(module: HloModule): { outline: OutlineEntry[]; spills: SpillCandidate[] } {
    for (const f of this.fusions) f.fusedOps = this.opCounts.get(f.calls) ?? 0;
    if (this.framesAtStart >= 0 && frameCount(module.stackFrames) !== this.framesAtStart) {
      for (const [m, source] of this.sources) Object.assign(source, sourceOf(m, module.stackFrames));
    }
    const keys = this.lists.keys as MutableKey[];
    for (const name of this.applied) for (const c of this.byName.get(name) ?? []) for (let i = c.keyFrom; i < c.keyTo; i++) (keys[i] as MutableKey).applied = true;
    const outline = this.computations.map((c) => this.outlineOf(c));
    return { outline, spills: this.withSpills ? this.spills(module) : [] };
  }

  private outlineOf(c: Indexed): OutlineEntry {
    const caller = this.fusionCaller.get(c.name);
    return {
      name: c.name, kind: caller ? 'fusion' : 'computation', from: c.from, to: c.to,
      lineFrom: this.lines.lineAt(c.from), lineTo: this.lines.lineAt(Math.max(c.from, c.to - 1)), opCount: c.count,
      ...(caller?.kind ? { fusionKind: caller.kind } : {}),
      ...(c.isEntry ? { isEntry: true } : {}),
    };
  }

  /**
   * Spills over the computations the spill pass can reach, read again from the text: the entry,
   * call targets, and the computations holding calls. A fused computation that is neither entry
   * nor call target is left empty: the spill pass never follows values into fused computations.
   */
  private spills(module: HloModule): SpillCandidate[] {
    // XLA takes the last computation as the entry when none is marked `ENTRY`.
    const entry = this.computations.find((c) => c.isEntry) ?? this.computations[this.computations.length - 1];
    const kept: Indexed[] = this.computations.filter((c) => c === entry || this.callTargets.has(c.name) || this.callScopes.has(c));
    const whole = kept.map((c) => c.kept ?? this.reread(c));
    const graph = new ModuleGraph({ ...module, computations: whole }, whole[kept.indexOf(entry as Indexed)]);
    // Emptied only now, so the graph has noted the call sites they hold.
    kept.forEach((c, i) => {
      const released = this.fusionCaller.has(c.name) && !this.callTargets.has(c.name) && c !== entry;
      if (released) (whole[i] as HloComputation).instructions.length = 0;
    });
    return findSpills(graph, this.lines, this.loops);
  }

  private reread(c: Indexed): HloComputation {
    const again = parseComputationAt(this.text, c.from);
    return again?.name === c.name && again.instructions.length === c.count
      ? again
      : { name: c.name, isEntry: c.isEntry, instructions: [], from: c.from, to: c.to };
  }
}

/**
 * An instruction's bytes and type by name within one computation, from the `count` values indexed
 * for it from `valueFrom` on and their `types`; the map is built on first use (later names win).
 */
class ScopeNames implements ScopeLookup {
  private map: Map<string, number> | undefined;

  constructor(
    private readonly values: readonly ValueInfo[], private readonly types: readonly ValueType[], private readonly valueFrom: number, private readonly count: number,
  ) {}

  get(name: string): { readonly bytes: number; readonly type: ValueType } | undefined {
    if (!this.map) {
      this.map = new Map();
      for (let i = 0; i < this.count; i++) this.map.set((this.values[this.valueFrom + i] as ValueInfo).name, i);
    }
    const i = this.map.get(name);
    return i === undefined ? undefined : { bytes: (this.values[this.valueFrom + i] as ValueInfo).bytes, type: this.types[i] as ValueType };
  }
}

/** A custom-call as a kernel: its target and name (backend config, else Pallas metadata), operands from `lookup`, one result per tuple element. */
function kernelOf(ins: HloInstruction, scope: string, line: number, lookup: ScopeNames): KernelInfo {
  const operands: KernelValue[] = ins.operands.map((name) => {
    const v = lookup.get(name);
    return { name, type: v ? formatType(v.type) : '', bytes: v?.bytes ?? 0 };
  });
  const elements = 'tuple' in ins.type ? ins.type.tuple : [ins.type];
  const results: KernelValue[] = elements.map((t) => ({ type: formatType(t), bytes: valueBytes(t) }));
  // A Pallas kernel's name is the scope its `pallas_call` ran in: `jit(f)/matmul_kernel/pallas_call`.
  const kernelName = ins.attrs?.kernelName ?? /([^/]+)\/pallas_call$/.exec(ins.metadata?.opName ?? '')?.[1];
  return {
    name: ins.name, scope, line, from: ins.from, to: ins.to, target: ins.attrs?.customCallTarget ?? '', ...(kernelName !== undefined ? { kernelName } : {}),
    operands, results, inputBytes: operands.reduce((s, o) => s + o.bytes, 0), outputBytes: ins.bytes,
  };
}

function frameCount(f: HloStackFrames): number {
  return f.fileNames.size + f.functionNames.size + f.fileLocations.size + f.frames.size;
}

function sourceOf(m: HloMetadata, frames: HloStackFrames): SourceRef {
  let file = m.sourceFile;
  let line = m.sourceLine;
  let column: number | undefined;
  if (m.stackFrameId !== undefined && (file === undefined || line === undefined)) {
    const f = resolveFrame(frames, m.stackFrameId);
    // The frame's column only goes with the frame's own line.
    if (line === undefined && f?.line !== undefined) column = f.column;
    file ??= f?.file;
    line ??= f?.line;
  }
  const out: { opName?: string; file?: string; line?: number; column?: number } = {};
  if (m.opName !== undefined) out.opName = m.opName;
  if (file !== undefined) out.file = file;
  if (line !== undefined) out.line = line;
  if (column !== undefined) out.column = column;
  return out;
}
