import { hoverTooltip, type EditorView, type Tooltip } from '@codemirror/view';
import type { DotInfo, FusionInfo, SpillCandidate, ValueInfo } from '@seam/shared/ir';
import { formatBytes } from '@seam/shared/model';
import { irIndexField } from './field';
import { spanAt, valueAt, wordAt, type IrLookup } from './lookup';
import { shapeAt, type ShapeAt } from './shape-bytes';
import { opTimeLine, opTimesField } from './op-times';
import { hloOpAt } from '../../trace/hlo-op-at';

/** What the hover shows at one position, as lines of plain text (never HTML). */
export interface HoverFacts {
  readonly from: number;
  readonly to: number;
  readonly lines: readonly string[];
}

const dims = (d: readonly number[]) => (d.length ? d.join('×') : 'scalar');
const axes = (a: readonly number[]) => `[${a.join(', ')}]`;

function shapeLine(s: ShapeAt): string {
  return `${s.text}: ${formatBytes(s.bytes)}`;
}

function valueLine(v: ValueInfo): string {
  return `${v.name}: ${v.type} — ${formatBytes(v.bytes)}`;
}

/** `dot_general` decoded: operand shapes, contracting and batch axes, and the einsum-like string. */
export function dotLines(d: DotInfo): string[] {
  return [
    `dot_general ${d.einsum}`,
    `lhs ${dims(d.lhs)} · rhs ${dims(d.rhs)}`,
    `contracting ${axes(d.lhsContracting)} x ${axes(d.rhsContracting)}`,
    `batch ${axes(d.lhsBatch)} x ${axes(d.rhsBatch)}`,
  ];
}

/** A fusion: kind, the computation it calls, fused op count, input and output bytes. */
export function fusionLines(f: FusionInfo): string[] {
  return [`fusion ${f.name} · ${f.kind} · calls ${f.calls}`, `${f.fusedOps} fused ops · in ${formatBytes(f.inputBytes)} · out ${formatBytes(f.outputBytes)}`];
}

/** A spill candidate: size, traffic and who reads it back. */
export function spillLines(s: SpillCandidate): string[] {
  return [`spill ${s.producer}${s.outputIndex ? `{${s.outputIndex.join(',')}}` : ''} · ${s.type}`, `${formatBytes(s.bytes)} · ${formatBytes(s.traffic)} traffic`, `read by ${s.consumers.join(', ')}`];
}

/** Everything known at `pos`: the shape or value under the pointer, and the dot, fusion or spill of its instruction. */
export function hoverFacts(l: IrLookup | null, line: { text: string; from: number }, pos: number): HoverFacts | null {
  const out: string[] = [];
  let from = pos;
  let to = pos;
  const shape = shapeAt(line.text, line.from, pos - line.from);
  if (shape) {
    out.push(shapeLine(shape));
    ({ from, to } = shape);
  } else if (l) {
    const w = wordAt(line.text, line.from, pos);
    const v = w && valueAt(l, w.text, pos);
    if (w && v) {
      out.push(valueLine(v));
      ({ from, to } = w);
    }
  }
  if (l) {
    const dot = spanAt(l.dots, pos);
    if (dot) out.push(...dotLines(dot));
    const fusion = spanAt(l.fusions, pos);
    if (fusion) out.push(...fusionLines(fusion));
    const spill = spanAt(l.spills, pos);
    if (spill) out.push(...spillLines(spill));
  }
  return out.length ? { from, to, lines: out } : null;
}

/** Hover tooltips over IR: a shape's bytes, a value's type and bytes, a dot_general decoded, a fusion, a spill, and the op's measured time when a trace is linked. */
export function irHover() {
  return hoverTooltip((view: EditorView, pos: number): Tooltip | null => {
    const line = view.state.doc.lineAt(pos);
    const l = view.state.field(irIndexField, false) ?? null;
    const found = hoverFacts(l, line, pos);
    // With a trace linked, the instruction's (or its fusion's) measured time.
    const times = view.state.field(opTimesField, false) ?? null;
    const op = l && times ? hloOpAt(l, line.number, line.text) : null;
    const t = op ? times?.get(op) : undefined;
    const facts = t && op ? { from: found?.from ?? pos, to: found?.to ?? pos, lines: [...(found?.lines ?? []), opTimeLine(op, t)] } : found;
    if (!facts) return null;
    return {
      pos: facts.from,
      end: facts.to,
      above: true,
      create: () => {
        const dom = document.createElement('div');
        dom.className = 'cm-ir-hover';
        dom.setAttribute('role', 'tooltip');
        for (const t of facts.lines) {
          const p = document.createElement('div');
          p.textContent = t;
          dom.appendChild(p);
        }
        return { dom };
      },
    };
  }, { hoverTime: 250 });
}
