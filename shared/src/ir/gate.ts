import type { DumpIndex, SpillCandidate } from './types';

/** Hardware time of one HLO op in a trace: its events' durations summed over the whole trace. */
export interface OpTime {
  /** `hlo_module` of its events, when the trace names it. */
  readonly module?: string;
  /** `hlo_op`: the HLO instruction name. */
  readonly op: string;
  /** Sum of its events' durations, in microseconds. */
  readonly totalUs: number;
  /** How many events. */
  readonly count: number;
}

export interface GateInput {
  /** Index of the optimized HLO module the trace ran. */
  readonly index: DumpIndex;
  readonly opTimes: readonly OpTime[];
  /** The device's measured copy bandwidth. */
  readonly bandwidthBytesPerS: number;
  /** The spill candidate, by producer name; the top one (largest traffic) when absent. */
  readonly candidate?: string;
  /** What the compiler's cost model says the program moves (`bytes accessed`). */
  readonly costModelBytes?: number;
  /** Largest accepted |measured / estimate − 1|; 0.2 when absent. */
  readonly bar?: number;
  /**
   * How many runs of the program the trace covers. Without it each op's time is its mean per
   * occurrence, which is one run's time only for ops that execute once per run (not in a loop).
   */
  readonly runs?: number;
}

/** One op whose time the gate summed, with the trace row it came from. */
export interface GateOp {
  readonly op: string;
  readonly role: 'writes' | 'reads';
  /** The trace row: total microseconds and events, over the whole trace. */
  readonly totalUs: number;
  readonly count: number;
  /** Its share of one run: totalUs / runs, or totalUs / count without a run count. */
  readonly perRunUs: number;
  /** Its line in the dump, when the index knows it. */
  readonly line?: number;
}

export interface GateRatios {
  /** measured / estimate: the gate's figure. */
  readonly measuredToEstimate: number;
  readonly costModelToEstimate?: number;
  readonly measuredToCostModel?: number;
}

export interface GateResult {
  readonly candidate: {
    readonly name: string;
    readonly type: string;
    readonly bytes: number;
    readonly module?: string;
    readonly line: number;
    readonly consumers: readonly string[];
    readonly outputIndex?: readonly number[];
  };
  /** The dump's estimate: bytes × (1 write + 1 read per consuming kernel), the candidate's traffic. */
  readonly estimateBytes: number;
  /** The writer first, then the readers in the dump's order. */
  readonly ops: readonly GateOp[];
  readonly runs?: number;
  /** Hardware time of one run of the ops above. */
  readonly measuredSeconds: number;
  readonly bandwidthBytesPerS: number;
  /** measuredSeconds × bandwidthBytesPerS. */
  readonly measuredBytes: number;
  readonly costModelBytes?: number;
  readonly ratios: GateRatios;
  readonly bar: number;
  /** |measured / estimate − 1| ≤ bar. */
  readonly pass: boolean;
  /** How each figure was found, one sentence a line. */
  readonly explanation: readonly string[];
}

export type GateErrorCode = 'bad-input' | 'bad-bandwidth' | 'no-candidate' | 'unknown-candidate' | 'op-not-in-trace' | 'ambiguous-op';

/** The gate cannot be computed from what it was given; `code` says which fault, the message how to fix it. */
export class GateError extends Error {
  constructor(readonly code: GateErrorCode, message: string) {
    super(message);
    this.name = 'GateError';
  }
}

export const DEFAULT_GATE_BAR = 0.2;

/**
 * The course's gate: for a spill candidate of an optimized HLO module, sums the hardware time of
 * the kernels that write it and read it (from a trace of that module), converts the time to bytes
 * at the measured copy bandwidth, and compares with the dump's estimate of the bytes the spill
 * moves. Pure: the same index, op times and bandwidth always give the same result. Throws
 * {@link GateError} when a figure is missing or unusable.
 */
export function computeGate(input: GateInput): GateResult {
  const bar = input.bar ?? DEFAULT_GATE_BAR;
  checkInput(input, bar);
  const spill = chooseCandidate(input.index.spills, input.candidate);
  const module = moduleAt(input.index, spill.line);
  const runs = input.runs;
  const roles: [string, 'writes' | 'reads'][] = [[spill.producer, 'writes'], ...spill.consumers.map((c): [string, 'reads'] => [c, 'reads'])];
  const missing: string[] = [];
  const ops: GateOp[] = [];
  for (const [op, role] of roles) {
    const row = findRow(input.opTimes, op, module);
    if (!row) {
      missing.push(op);
      continue;
    }
    const perRunUs = row.totalUs / (runs ?? Math.max(row.count, 1));
    const line = lineOf(input.index, op, spill.scope);
    ops.push({ op, role, totalUs: row.totalUs, count: row.count, perRunUs, ...(line !== undefined ? { line } : {}) });
  }
  if (missing.length > 0) {
    throw new GateError('op-not-in-trace', `the trace has no events for ${missing.join(', ')}${module ? ` of module ${module}` : ''}: ` +
      'it was not recorded from this compiled module (or the ops were renamed, fused or replaced when it was recompiled)');
  }
  const measuredSeconds = ops.reduce((s, o) => s + o.perRunUs, 0) / 1e6;
  const measuredBytes = measuredSeconds * input.bandwidthBytesPerS;
  const estimateBytes = spill.traffic;
  const cost = input.costModelBytes;
  const ratios: GateRatios = {
    measuredToEstimate: measuredBytes / estimateBytes,
    ...(cost !== undefined ? { costModelToEstimate: cost / estimateBytes, ...(cost > 0 ? { measuredToCostModel: measuredBytes / cost } : {}) } : {}),
  };
  const pass = Math.abs(ratios.measuredToEstimate - 1) <= bar;
  const candidate = {
    name: spill.producer, type: spill.type, bytes: spill.bytes, line: spill.line, consumers: spill.consumers,
    ...(module !== undefined ? { module } : {}), ...(spill.outputIndex ? { outputIndex: spill.outputIndex } : {}),
  };
  const result = {
    candidate, estimateBytes, ops, measuredSeconds, bandwidthBytesPerS: input.bandwidthBytesPerS, measuredBytes, ratios, bar, pass,
    ...(runs !== undefined ? { runs } : {}), ...(cost !== undefined ? { costModelBytes: cost } : {}),
  };
  return { ...result, explanation: explain(result) };
}

function checkInput(input: GateInput, bar: number): void {
  const bw = input.bandwidthBytesPerS;
  if (typeof bw !== 'number' || !Number.isFinite(bw) || bw <= 0) {
    throw new GateError('bad-bandwidth', `the measured bandwidth must be a positive number of bytes per second, not ${String(bw)}`);
  }
  if (!Number.isFinite(bar) || bar < 0) throw new GateError('bad-input', `the bar must be a non-negative fraction (0.2 is 20%), not ${String(bar)}`);
  if (input.runs !== undefined && (!Number.isInteger(input.runs) || input.runs < 1)) {
    throw new GateError('bad-input', `runs must be a whole number of at least 1, not ${String(input.runs)}`);
  }
  const cost = input.costModelBytes;
  if (cost !== undefined && (!Number.isFinite(cost) || cost < 0)) throw new GateError('bad-input', `the cost model's bytes must be a non-negative number, not ${String(cost)}`);
  for (const r of input.opTimes) {
    if (!Number.isFinite(r.totalUs) || r.totalUs < 0 || !Number.isInteger(r.count) || r.count < 0) {
      throw new GateError('bad-input', `op ${r.op}: totalUs must be a non-negative number and count a whole number (got ${String(r.totalUs)} µs over ${String(r.count)})`);
    }
  }
}

function chooseCandidate(spills: readonly SpillCandidate[], name: string | undefined): SpillCandidate {
  if (spills.length === 0) {
    throw new GateError('no-candidate', 'the dump has no spill candidate (no value written by one kernel and read back by another): the gate needs optimized HLO with one');
  }
  if (name === undefined) return spills[0] as SpillCandidate;
  // Spills are ranked by traffic: the first with this producer is its largest element.
  const found = spills.find((s) => s.producer === name || s.producer === name.replace(/^%/, ''));
  if (found) return found;
  const known = spills.slice(0, 5).map((s) => s.producer).join(', ');
  throw new GateError('unknown-candidate', `${name} is not a spill candidate of this dump; the top ones are ${known}`);
}

/** The module whose lines hold `line`, when the outline has modules. */
function moduleAt(index: DumpIndex, line: number): string | undefined {
  return index.outline.find((e) => e.kind === 'module' && e.lineFrom <= line && line <= e.lineTo)?.name;
}

function findRow(rows: readonly OpTime[], op: string, module: string | undefined): OpTime | undefined {
  const matches = rows.filter((r) => r.op === op && (module === undefined || r.module === undefined || r.module === module));
  const modules = new Set(matches.map((r) => r.module));
  if (matches.length > 1) {
    throw new GateError('ambiguous-op', `the trace has ${matches.length} rows for ${op}${modules.size > 1 ? ` (modules ${[...modules].join(', ')})` : ''}: give one row per op and module`);
  }
  return matches[0];
}

/** The op's line in the dump: a kernel of the candidate's computation (not an instruction inside a fusion). */
function lineOf(index: DumpIndex, op: string, scope: string): number | undefined {
  return index.keys.find((k) => k.name === op && k.scope === scope && k.fusion === undefined)?.line;
}

/** Decimal megabytes, as profilers print them, with the exact count: `805.3 MB (805,306,368 B)`. */
export function formatMB(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB (${Math.round(bytes).toLocaleString('en-US')} B)`;
}

function us(n: number): string {
  return `${n.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} µs`;
}

function explain(r: Omit<GateResult, 'explanation'>): string[] {
  const c = r.candidate;
  const reads = c.consumers.length;
  const lines = [
    `candidate ${c.name}${c.outputIndex ? `{${c.outputIndex.join(',')}}` : ''} (${c.type}, line ${c.line}${c.module ? ` of ${c.module}` : ''}): written by ${c.name}, read by ${c.consumers.join(', ')}`,
    `estimate: ${c.bytes.toLocaleString('en-US')} B × (1 write + ${reads} read${reads === 1 ? '' : 's'}) = ${formatMB(r.estimateBytes)}`,
  ];
  for (const o of r.ops) {
    const per = r.runs !== undefined ? `/ ${r.runs} runs` : `/ ${o.count} occurrences`;
    lines.push(`  ${o.role} ${o.op}${o.line !== undefined ? ` (line ${o.line})` : ''}: ${us(o.totalUs)} over ${o.count} events ${per} = ${us(o.perRunUs)}`);
  }
  lines.push(`hardware time per run: ${us(r.measuredSeconds * 1e6)}${r.runs === undefined ? ' (no run count given: each op\'s mean per occurrence)' : ''}`);
  lines.push(`measured: ${us(r.measuredSeconds * 1e6)} × ${(r.bandwidthBytesPerS / 1e9).toFixed(2)} GB/s measured copy bandwidth = ${formatMB(r.measuredBytes)}`);
  if (r.costModelBytes !== undefined) {
    lines.push(`cost model: ${formatMB(r.costModelBytes)}; cost model / estimate = ${ratio(r.ratios.costModelToEstimate)}`);
  }
  const off = Math.abs(r.ratios.measuredToEstimate - 1);
  lines.push(`measured / estimate = ${ratio(r.ratios.measuredToEstimate)}: ${(off * 100).toFixed(1)}% off, ${r.pass ? 'within' : 'outside'} the ${+(r.bar * 100).toFixed(2)}% bar: ${r.pass ? 'pass' : 'fail'}`);
  return lines;
}

function ratio(x: number | undefined): string {
  return x === undefined ? 'n/a' : x.toFixed(3);
}
