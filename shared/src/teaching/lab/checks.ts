import { readBytes } from '../drill/bytes-answer';
import { exportMappings, mappingGroups } from '../../model/export-mapping';
import type { Annotation } from '../../model/annotation';
import type { DocumentMeta } from '../../model/document';
import type { SpillCandidate } from '../../ir/types';
import { NEEDS, type LabCapture, type LabCheck } from './lab-format';
import { doneCapturesOf, documentsOf } from './captures-of';
import type { LabRoomData } from './room-data';

/** A step's state for the room or one member: done or not, and a sentence saying why. */
export interface StepResult {
  readonly done: boolean;
  readonly detail: string;
}

const not = (detail: string): StepResult => ({ done: false, detail });

/**
 * Evaluates a room-wide check (`capture-done`, `mapping-complete`, `gate-passed`) on the room's
 * data. `capture` is the lab capture the check names.
 */
export function checkRoom(check: Exclude<LabCheck, { kind: 'spill-annotated' }>, capture: LabCapture, data: LabRoomData): StepResult {
  const done = doneCapturesOf(data, capture, NEEDS[check.kind]);
  if (done.length === 0) return not(`no finished capture of ${capture.entry} with ${[...NEEDS[check.kind]].join(', ') || 'its dumps'} yet`);
  switch (check.kind) {
    case 'capture-done':
      return { done: true, detail: `${capture.entry} was captured` };
    case 'mapping-complete':
      return mappingComplete(check.primitive, done.map((c) => documentsOf(data, c)), data);
    case 'gate-passed':
      return gatePassed(done.map((c) => c.id), data);
  }
}

/**
 * Some capture group's mapping table has a row for every `primitive` equation, each joined to an
 * HLO instruction and to a StableHLO op. A StableHLO printed without `loc(…)` (what a capture's
 * `stablehlo` is) joins no op to any row; it then counts when it holds at least as many
 * `stablehlo.<primitive>` ops as the jaxpr has equations.
 */
function mappingComplete(primitive: string, groups: readonly (readonly DocumentMeta[])[], data: LabRoomData): StepResult {
  let last = not('the analyses of the capture are not ready yet');
  for (const docs of groups) {
    for (const m of exportMappings(mappingGroups(docs), data.analysisOf)) {
      const rows = m.rows.filter((r) => r.primitive === primitive);
      if (rows.length === 0) {
        last = not(`the jaxpr has no ${primitive} equation`);
        continue;
      }
      const shloOps = data.analysisOf(m.documents.stablehlo.id)?.index.keys.filter((k) => k.op === `stablehlo.${primitive}`).length ?? 0;
      const byCount = m.stablehloWithoutLocs && shloOps >= rows.length;
      const open = rows.filter((r) => r.hlo.length === 0 || (r.stablehlo.length === 0 && !byCount));
      if (open.length === 0) {
        const how = byCount ? ' (the StableHLO has no locations: its ops are counted, not joined)' : '';
        return { done: true, detail: `all ${rows.length} ${primitive} equations map to StableHLO and HLO${how}` };
      }
      last = not(`${open.length} of ${rows.length} ${primitive} equations have no StableHLO or HLO counterpart (${open.map((r) => r.equation).join(', ')})`);
    }
  }
  return last;
}

function gatePassed(captureIds: readonly string[], data: LabRoomData): StepResult {
  let last = not('no gate has been computed for the traced capture yet');
  for (const id of captureIds) {
    const g = data.gates.get(id);
    if (!g) continue;
    if ('reason' in g) {
      last = not(`the gate cannot be computed: ${g.message}`);
      continue;
    }
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    const off = Math.abs(g.gate.measuredBytes / g.gate.estimateBytes - 1);
    if (g.gate.pass) return { done: true, detail: `the gate passed: measured within ${pct(off)} of the estimate (bar ${pct(g.gate.bar)})` };
    last = not(`the gate did not pass: measured ${pct(off)} from the estimate (bar ${pct(g.gate.bar)})`);
  }
  return last;
}

/** The dimensions of an HLO type, `bf16[8192,8192]{1,0}` → [8192, 8192]; undefined for a tuple or none. */
function dimsOf(type: string): number[] | undefined {
  const m = /^[a-z0-9]+\[([0-9,]*)\]/.exec(type.trim());
  if (!m) return undefined;
  return (m[1] ?? '').split(',').filter((d) => d !== '').map(Number);
}

const sameDims = (a: readonly number[] | undefined, b: readonly number[]): boolean => a !== undefined && a.length === b.length && a.every((d, i) => d === b[i]);

/**
 * The size an annotation states: the first size written in its body (`128 MiB`, `134,217,728 B`,
 * `1.34e8 bytes`, `2**27`), else the `bytes` the analysis filled in; undefined when neither.
 */
export function statedBytes(a: Pick<Annotation, 'body' | 'bytes'>): number | undefined {
  // e.g. "about 134 MB", "= 2**27 bytes", "134,217,728 B"
  const re = /(\d{1,2}\s*(?:\*\*|\^)\s*\d{1,2}|\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?(?:e\d{1,2})?)\s*(kib|mib|gib|tib|kb|mb|gb|tb|bytes|byte|b)?\b/gi;
  for (const m of a.body.matchAll(re)) {
    if (!m[2] && !/\*\*|\^/.test(m[1] ?? '')) continue;
    const count = readBytes(m[1] ?? '');
    const unit = readBytes(`1${m[2] ?? ''}`);
    const n = count === undefined || unit === undefined ? undefined : count * unit;
    if (n !== undefined && n > 0) return n;
  }
  return a.bytes !== undefined && a.bytes > 0 ? a.bytes : undefined;
}

/**
 * `spill-annotated` for one member: one of their spill annotations sits on a value of `shape`
 * that the optimized HLO's index lists as spilled (on its producing instruction), stating a size
 * within `tolerance` of the index's bytes for it.
 */
export function checkSpill(check: Extract<LabCheck, { kind: 'spill-annotated' }>, capture: LabCapture, data: LabRoomData, memberId: string): StepResult {
  const targets: Array<{ docId: string; spill: SpillCandidate }> = [];
  for (const c of doneCapturesOf(data, capture, NEEDS[check.kind])) {
    for (const d of documentsOf(data, c)) {
      if (d.kind !== 'hlo-opt') continue;
      for (const s of data.analysisOf(d.id)?.index.spills ?? []) if (sameDims(dimsOf(s.type), check.shape)) targets.push({ docId: d.id, spill: s });
    }
  }
  const shape = `[${check.shape.join(',')}]`;
  if (targets.length === 0) return not(`no analysed optimized HLO of ${capture.entry} spills a ${shape} value yet`);
  const mine = data.annotations.filter((a) => a.author.id === memberId && a.kind === 'spill');
  let last = not(`no spill annotation of yours sits on the ${shape} value`);
  for (const a of mine) {
    const t = targets.find(({ docId, spill }) => a.docId === docId && (a.instruction === spill.producer || (a.from < spill.to && spill.from < a.to)));
    if (!t) continue;
    const stated = statedBytes(a);
    if (stated === undefined) {
      last = not('your spill annotation states no size: write your estimate, e.g. "128 MiB"');
      continue;
    }
    const off = Math.abs(stated / t.spill.bytes - 1);
    const pct = `${(off * 100).toFixed(1)}%`;
    if (off <= check.tolerance) return { done: true, detail: `your estimate is within ${pct} of the ${t.spill.bytes.toLocaleString('en-US')} bytes the dump gives` };
    last = not(`your estimate is ${pct} from the size the dump gives (the bar is ${Math.round(check.tolerance * 100)}%)`);
  }
  return last;
}
