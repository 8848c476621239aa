import type { Diagnostic, ParseResult } from '../types';
import { safeInt, textLines, type TextLine } from './text-lines';
import { AllocationFlag, type AllocatedValue, type Allocation, type BufferAssignment, type PeakLiveSet, type PeakValue } from './types';

/**
 * allocation := `allocation` N `:` (`0x…,`)? `size` S (`,` flag)* `:`
 * e.g. `allocation 1: size 2097152, parameter 0, shape |bf16[8192,128]| at ShapeIndex {}:`.
 */
const ALLOCATION = /^allocation (\d+): (?:0x[0-9a-f]+, )?size (\d+)(.*):$/;
/** value := `value:` `<`id name index? (phi)? (@color)?`>` `(size=`S`,offset=`O`):` shape, e.g. ` value: <5 tuple.3{1} @0> (size=8,offset=0): f32[2]{0}`. */
const VALUE = /^\s+value: <(\d+) ([^\s{>]+)(\{[\d,]*\})?( \(phi\))?(?: @(\d+))?> \(size=(\d+),offset=(\d+)\): (.+)$/;
/** `Total bytes used: 29644 (28.9KiB)` */
const TOTAL = /^Total bytes used: (\d+)/;
/** A `Used values:` entry's head: `<33 multiply_convert_fusion @0>`. */
const USED_VALUE = /^<\d+ [^>]+>$/;
/** `HloLiveRange (max 20):` */
const LIVE_RANGE = /^HloLiveRange \(max (\d+)\):$/;
/** `  Live ranges at 18 (peak):` */
const PEAK_AT = /^\s+Live ranges at (\d+) \(peak\):$/;
/** `    dot_general.3{}: 4194304 bytes (cumulative: 272629760 bytes)` */
const PEAK_VALUE = /^\s+([^\s{]+)(\{[\d,]*\}): (\d+) bytes \(cumulative: (\d+) bytes\)$/;

/** Sections XLA may print beside the assignment that carry nothing read here: `BufferAssignment stats:`, `BufferAssignment OOM Debugging.`, `Peak buffers:`. */
const OTHER_SECTION = /^(?:BufferAssignment (?:stats:|OOM Debugging\.)|Peak buffers:)/;

type Section = 'none' | 'allocations' | 'used' | 'live' | 'peak' | 'other';

/**
 * Reads XLA's buffer assignment (`BufferAssignment::ToString`): the allocations with their flags
 * and values, `Total bytes used`, the `Used values` section (counted), and `HloLiveRange`'s peak
 * live set, whichever of these the text holds (newer XLA writes them to three files:
 * `-buffer-assignment.txt`, `-buffer-assignment-values.txt`, `-live-range.txt`). Never throws:
 * a line that breaks the grammar of its section, a number too large to be exact, and a text with
 * none of the sections are diagnostics.
 */
export function parseBufferAssignment(text: string): ParseResult<BufferAssignment> {
  const diagnostics: Diagnostic[] = [];
  const allocations: Allocation[] = [];
  let current: { allocation: Allocation; values: AllocatedValue[] } | undefined;
  let printedTotal: number | undefined;
  let usedValues = 0;
  let scheduleLength: number | undefined;
  let peak: { time: number; bytes: number; values: PeakValue[] } | undefined;
  let section: Section = 'none';
  let last: TextLine | undefined;
  const bad = (l: TextLine, message: string): void => {
    diagnostics.push({ severity: l.ended ? 'warning' : 'error', message: l.ended ? message : `the text ends inside a line: ${message}`, from: l.from, to: Math.max(l.to, l.from) });
  };
  const close = (): void => {
    if (current) allocations.push({ ...current.allocation, values: current.values });
    current = undefined;
  };
  for (const l of textLines(text)) {
    last = l;
    const t = l.text;
    if (t.trim() === '') continue;
    if (t === 'BufferAssignment:') { close(); section = 'allocations'; continue; }
    if (t === 'Used values:') { close(); section = 'used'; continue; }
    if (OTHER_SECTION.test(t)) { close(); section = 'other'; continue; }
    const total = TOTAL.exec(t);
    if (total) {
      close();
      printedTotal = safeInt(total[1]);
      if (printedTotal === undefined) bad(l, 'Total bytes used: the number is too large to be exact');
      section = 'none';
      continue;
    }
    const live = LIVE_RANGE.exec(t);
    if (live) { close(); scheduleLength = safeInt(live[1]); section = 'live'; continue; }
    if (t.startsWith('allocation ')) {
      close();
      section = 'allocations';
      const a = readAllocation(t, l.number);
      if (typeof a === 'string') bad(l, a);
      else current = { allocation: a, values: [] };
      continue;
    }
    switch (section) {
      case 'allocations': {
        const v = readValue(t, l.number);
        if (typeof v === 'string') bad(l, v);
        else if (!current) bad(l, 'a value before any allocation');
        else current.values.push(v);
        break;
      }
      case 'used':
        if (USED_VALUE.test(t)) usedValues++;
        break;
      case 'other':
        break;
      case 'live':
      case 'peak': {
        const at = PEAK_AT.exec(t);
        if (at) {
          peak = { time: safeInt(at[1]) ?? 0, bytes: 0, values: [] };
          section = 'peak';
        } else if (section === 'peak') {
          const p = PEAK_VALUE.exec(t);
          const bytes = safeInt(p?.[3]);
          const cumulative = safeInt(p?.[4]);
          if (p && peak && bytes !== undefined && cumulative !== undefined) {
            peak.values.push({ name: p[1] ?? '', index: p[2] ?? '{}', bytes });
            peak.bytes = cumulative;
          } else if (/^\s{4}\S/.test(t) && !/^\s+Stack trace/.test(t)) {
            bad(l, 'expected `name{index}: N bytes (cumulative: M bytes)` in the peak live set');
          } else section = 'live';
        }
        break;
      }
      default:
        bad(l, 'not a line of an XLA buffer assignment');
    }
  }
  close();
  const sum = allocations.reduce((s, a) => s + a.size, 0);
  if (allocations.length === 0 && peak === undefined && usedValues === 0) {
    diagnostics.push({ severity: 'error', message: 'not an XLA buffer assignment: no `allocation N: size S` line, no `Used values:` and no peak live set', from: 0, to: Math.min(text.length, last?.to ?? 0) });
  }
  if (printedTotal !== undefined && allocations.length > 0 && printedTotal !== sum) {
    diagnostics.push({ severity: 'warning', message: `Total bytes used says ${printedTotal} but the allocations add up to ${sum}: the text may be cut short or edited`, from: 0, to: 0 });
  }
  const ast: BufferAssignment = {
    allocations,
    totalBytes: printedTotal ?? sum,
    totalPrinted: printedTotal !== undefined,
    usedValues,
    ...(scheduleLength !== undefined ? { scheduleLength } : {}),
    ...(peak ? { peak: peak satisfies PeakLiveSet } : {}),
  };
  return { ast, diagnostics };
}

/** One allocation header, or why it is not one. Flags follow the size, each after `, `; shapes are between bars and may hold commas. */
export function readAllocation(line: string, lineNo: number): Allocation | string {
  const m = ALLOCATION.exec(line);
  const index = safeInt(m?.[1]);
  const size = safeInt(m?.[2]);
  if (!m || index === undefined || size === undefined) return 'expected `allocation N: size S, …:` with numbers exact in a double';
  let rest = m[3] ?? '';
  let shape: string | undefined;
  rest = rest.replace(/\|([^|]*)\|/g, (_, s: string) => {
    shape ??= s;
    return '|';
  });
  const flags: AllocationFlag[] = [];
  let color = 0;
  let parameter: number | undefined;
  for (const part of rest.split(', ')) {
    const p = part.trim();
    if (p === '') continue;
    if (p.startsWith('color ')) color = safeInt(p.slice(6)) ?? 0;
    else if (p.startsWith('parameter ')) {
      parameter = safeInt(/^parameter (\d+)/.exec(p)?.[1]);
      flags.push(AllocationFlag.parameter);
    } else if (p.startsWith('shape |') || p.startsWith('shape')) continue;
    else if (p.startsWith('output shape is')) flags.push(AllocationFlag.output);
    else if (p === 'constant') flags.push(AllocationFlag.constant);
    else if (p === 'thread-local') flags.push(AllocationFlag.threadLocal);
    else if (p === 'maybe-live-out') flags.push(AllocationFlag.maybeLiveOut);
    else if (p === 'preallocated-temp') flags.push(AllocationFlag.preallocatedTemp);
  }
  return {
    index, size, color, flags, values: [], line: lineNo,
    ...(parameter !== undefined ? { parameter } : {}),
    ...(shape !== undefined ? { shape } : {}),
  };
}

function readValue(line: string, lineNo: number): AllocatedValue | string {
  const m = VALUE.exec(line);
  const id = safeInt(m?.[1]);
  const size = safeInt(m?.[6]);
  const offset = safeInt(m?.[7]);
  if (!m || id === undefined || size === undefined || offset === undefined) return 'expected ` value: <id name> (size=S,offset=O): shape` with numbers exact in a double';
  const color = safeInt(m[5]);
  return {
    id, name: m[2] ?? '', index: m[3] ?? '', size, offset, shape: m[8] ?? '', line: lineNo,
    ...(color !== undefined ? { color } : {}),
    ...(m[4] ? { phi: true } : {}),
  };
}
