import type { SpillCandidate } from '../types';
import type { Matching } from './match';
import type { DiffGraph } from './side';
import { SpillChangeKind, type DiffSpill, type SpillChange } from './types';

/**
 * Spill candidates of A and B paired through the ops that wrote them: a candidate's value is its
 * producer's content (a fusion's fused root, or the element of a multi-output root it names);
 * when that op's counterpart is the content of a candidate of B, the candidate is kept, otherwise
 * it disappeared; candidates of B left over appeared. Largest bytes first, then A's order.
 */
export function diffSpills(a: DiffGraph, b: DiffGraph, m: Matching): SpillChange[] {
  const ofB = new Map<number, SpillCandidate[]>();
  for (const s of b.module.spills) {
    const c = b.content(b.find(s.scope, s.producer), s.outputIndex);
    if (c < 0) continue;
    const list = ofB.get(c);
    if (list) list.push(s);
    else ofB.set(c, [s]);
  }
  const claimed = new Set<SpillCandidate>();
  const out: SpillChange[] = [];
  for (const s of a.module.spills) {
    const c = a.content(a.find(s.scope, s.producer), s.outputIndex);
    const j = c < 0 ? -1 : (m.aToB[c] as number);
    const partner = j < 0 ? undefined : ofB.get(j)?.find((x) => !claimed.has(x));
    if (partner) {
      claimed.add(partner);
      out.push({ change: SpillChangeKind.kept, a: spillOf(s), b: spillOf(partner) });
    } else {
      out.push({ change: SpillChangeKind.disappeared, a: spillOf(s) });
    }
  }
  for (const s of b.module.spills) if (!claimed.has(s)) out.push({ change: SpillChangeKind.appeared, b: spillOf(s) });
  return out.sort((x, y) => bytesOf(y) - bytesOf(x));
}

function bytesOf(c: SpillChange): number {
  return Math.max(c.a?.bytes ?? 0, c.b?.bytes ?? 0);
}

function spillOf(s: SpillCandidate): DiffSpill {
  return { name: s.producer, scope: s.scope, line: s.line, type: s.type, bytes: s.bytes, traffic: s.traffic, ...(s.loop ? { loop: s.loop } : {}) };
}
