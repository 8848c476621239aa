import type { DiffGraph } from './side';
import { Levels, type Tier } from './signature';
import { MatchTier } from './types';

/** How deep operand signatures go: an op, its operands, theirs, and theirs. */
const DEEP = 3;

/**
 * Strictest first; each tier pairs only what the ones before left. The last two need the source
 * position or the op_name to agree, so that two ops of one shape from unrelated lines are never
 * taken for each other.
 */
const TIERS: readonly Tier[] = [
  { tier: MatchTier.exact, opName: true, source: true, depth: DEEP },
  { tier: MatchTier.renamedStack, opName: false, source: true, depth: DEEP },
  { tier: MatchTier.near, opName: true, source: true, depth: 1 },
  { tier: MatchTier.near, opName: false, source: true, depth: 1 },
  { tier: MatchTier.loose, opName: false, source: true, depth: 0 },
  { tier: MatchTier.loose, opName: true, source: false, depth: 0 },
];

const FIRST = TIERS[0] as Tier;

function variantOf(t: Tier): string {
  return `${t.opName}${t.source}`;
}

/** What matching works out from A alone: its users, and its ops' signatures for the first tier. */
export interface PreparedA {
  readonly users: Users;
  readonly first: Levels;
}

/**
 * The part of `matchGraphs` that needs A alone, done while B is still being read elsewhere: A's
 * users and first-tier signatures (worked out first in any case, so the numbers are the same).
 */
export function prepareA(a: DiffGraph): PreparedA {
  const first = new Levels(a, undefined, FIRST);
  for (let i = 0; i < a.count; i++) if (a.matchable[i]) first.sig(0, i, FIRST.depth);
  return { users: new Users(a), first };
}

/** The two sides' nodes paired: `aToB[i]` is the node of B paired with node `i` of A, or -1. */
export interface Matching {
  readonly aToB: Int32Array;
  readonly bToA: Int32Array;
  /** Tier of each pair, by node of A. */
  readonly tierOfA: (MatchTier | undefined)[];
}

/**
 * Pairs the ops of two modules by structure: opcode, type, op_name, source file:line:column and
 * the same of their operands, recursively to `DEEP` levels (operands seen through fusion
 * boundaries), never by name. B's ops are taken operands first; within one signature, an op of B
 * pairs with the op of A that reads the partners of its operands (`anchored`), else with the one
 * nearest its place in the text (`nearest`), so the result is deterministic. About linear in the instruction count per tier.
 */
export function matchGraphs(a: DiffGraph, b: DiffGraph, prepared: PreparedA = prepareA(a)): Matching {
  const aToB = new Int32Array(a.count).fill(-1);
  const bToA = new Int32Array(b.count).fill(-1);
  const tierOfA: (MatchTier | undefined)[] = new Array<MatchTier | undefined>(a.count);
  // Signature levels per own-part variant, shared by the tiers that differ only in depth.
  const levels = new Map<string, Levels>([[variantOf(FIRST), prepared.first]]);
  prepared.first.meet(b);
  const order = operandsFirst(b);
  const scale = Math.max(1, a.module.lines) / Math.max(1, b.module.lines);
  const users = prepared.users;
  let leftA = ones(a.matchable);
  let leftB = ones(b.matchable);
  for (const tier of TIERS) {
    if (leftA === 0 || leftB === 0) break;
    const variant = variantOf(tier);
    let lv = levels.get(variant);
    if (!lv) {
      lv = new Levels(a, b, tier);
      levels.set(variant, lv);
    }
    const depth = tier.depth;
    const sa = (i: number): number => (lv as Levels).sig(0, i, depth);
    const sb = (j: number): number => (lv as Levels).sig(1, j, depth);
    const waiting = new Map<number, Queue>();
    for (let i = 0; i < a.count; i++) {
      if (!a.matchable[i] || aToB[i] !== -1) continue;
      const s = sa(i);
      const q = waiting.get(s);
      if (q) q.nodes.push(i);
      else waiting.set(s, { nodes: [i], next: 0 });
    }
    // Every A op still waiting has its number at this depth now: `anchored` reads them as they are.
    const waitingSigs = lv.level(0, depth);
    for (const j of order) {
      if (!b.matchable[j] || bToA[j] !== -1) continue;
      const q = waiting.get(sb(j));
      if (!q) continue;
      // Where B's op would sit in A if the modules differ little: its line, scaled.
      const target = (b.line(j) as number) * scale;
      let i = anchored(a, b, users, aToB, bToA, waitingSigs, sb(j), j, target);
      if (i < 0) i = nearest(a, q, aToB, target);
      if (i < 0) {
        while (q.next < q.nodes.length && aToB[q.nodes[q.next] as number] !== -1) q.next++;
        if (q.next === q.nodes.length) continue;
        i = q.nodes[q.next] as number;
      }
      aToB[i] = j;
      bToA[j] = i;
      tierOfA[i] = tier.tier;
      leftA--;
      leftB--;
    }
  }
  return { aToB, bToA, tierOfA };
}

/** The A nodes of one signature still waiting, in text order; `next` skips those taken. */
interface Queue {
  readonly nodes: number[];
  next: number;
}

/** How far `nearest` looks on each side of the target before it takes the first op left. */
const NEAR_SCAN = 256;

/**
 * The waiting A op of a queue whose line is nearest `target` (B's op's line, scaled to A), found
 * by bisection in the queue's text order and a bounded look either side; else the first left.
 */
function nearest(a: DiffGraph, q: Queue, aToB: Int32Array, target: number): number {
  const nodes = q.nodes;
  while (q.next < nodes.length && aToB[nodes[q.next] as number] !== -1) q.next++;
  if (q.next === nodes.length) return -1;
  let lo = q.next;
  let hi = nodes.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a.line(nodes[mid] as number) < target) lo = mid + 1;
    else hi = mid;
  }
  let best = -1;
  let gap = Infinity;
  for (let step = 0, l = lo - 1, r = lo; step < NEAR_SCAN && (l >= q.next || r < nodes.length); step++, l--, r++) {
    for (const x of [l, r]) {
      if (x < q.next || x >= nodes.length) continue;
      const u = nodes[x] as number;
      const d = Math.abs(a.line(u) - target);
      if (aToB[u] === -1 && d < gap) {
        best = u;
        gap = d;
      }
    }
    if (best >= 0) break;
  }
  return best >= 0 ? best : (nodes[q.next] as number);
}

/** How many users of one matched operand are looked at for an anchor, those nearest the target (a constant may have thousands). */
const USERS_LOOKED_AT = 64;

/**
 * The waiting A node of signature `sig` that shares the most matched operands with B node `j`,
 * in place (operand k of the one is the partner of operand k of the other); on a tie the one whose
 * line is nearest `target` (ops XLA duplicated into several fusions share signature and operands);
 * -1 when none shares any. This tells the layers of an unrolled model apart: their
 * ops have one signature, but each reads its own layer's weights.
 */
function anchored(a: DiffGraph, b: DiffGraph, users: Users, aToB: Int32Array, bToA: Int32Array, sigA: Float64Array, sig: number, j: number, target: number): number {
  let best = -1;
  let bestScore = 0;
  const from = b.opFrom[j] as number;
  const to = b.opFrom[j + 1] as number;
  for (let k = from; k < to; k++) {
    const ob = b.operands[k] as number;
    const oa = ob < 0 ? -1 : (bToA[ob] as number);
    if (oa < 0) continue;
    // Users are in text order: look at those whose lines are nearest the target.
    const first = users.from[oa] as number;
    const last = users.from[oa + 1] as number;
    let lo = first;
    let hi = last;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a.line(users.list[mid] as number) < target) lo = mid + 1;
      else hi = mid;
    }
    const uFrom = Math.max(first, lo - (USERS_LOOKED_AT >> 1));
    const uTo = Math.min(last, uFrom + USERS_LOOKED_AT);
    for (let x = uFrom; x < uTo; x++) {
      const u = users.list[x] as number;
      if (aToB[u] !== -1 || !a.matchable[u] || sigA[u] !== sig) continue;
      let score = 0;
      const n = Math.min(to - from, (a.opFrom[u + 1] as number) - (a.opFrom[u] as number));
      for (let p = 0; p < n; p++) {
        const pa = a.operands[(a.opFrom[u] as number) + p] as number;
        if (pa >= 0 && aToB[pa] === b.operands[from + p]) score++;
      }
      if (score > bestScore || (score === bestScore && score > 0 && Math.abs(a.line(u) - target) < Math.abs(a.line(best) - target))) {
        best = u;
        bestScore = score;
      }
    }
  }
  return best;
}

/** How many entries of `flags` are set. */
function ones(flags: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < flags.length; i++) if (flags[i]) n++;
  return n;
}

/** Each node's users (the nodes reading it, fusion boundaries seen through), in one flat list. */
class Users {
  readonly from: Int32Array;
  readonly list: Int32Array;

  constructor(g: DiffGraph) {
    const counts = new Int32Array(g.count + 1);
    for (const o of g.operands) if (o >= 0) counts[o + 1] = (counts[o + 1] as number) + 1;
    for (let i = 0; i < g.count; i++) counts[i + 1] = (counts[i + 1] as number) + (counts[i] as number);
    this.from = counts;
    this.list = new Int32Array(counts[g.count] as number);
    const fill = counts.slice(0, g.count);
    for (let i = 0; i < g.count; i++) {
      for (let k = g.opFrom[i] as number; k < (g.opFrom[i + 1] as number); k++) {
        const o = g.operands[k] as number;
        if (o >= 0) this.list[(fill[o] as number)++] = i;
      }
    }
  }
}

/**
 * The nodes in an order where each comes after its operands (fusion boundaries seen through), so a
 * node's operands are matched before it is; text order where that already holds. A cycle, which
 * only a malformed text has, is cut where it is met.
 */
function operandsFirst(g: DiffGraph): Int32Array {
  const out = new Int32Array(g.count);
  let n = 0;
  const state = new Uint8Array(g.count);
  const stack: number[] = [];
  for (let root = 0; root < g.count; root++) {
    if (state[root] !== 0) continue;
    stack.push(root);
    state[root] = 1;
    while (stack.length > 0) {
      const v = stack[stack.length - 1] as number;
      let pushed = false;
      for (let k = g.opFrom[v] as number; k < (g.opFrom[v + 1] as number); k++) {
        const o = g.operands[k] as number;
        if (o >= 0 && state[o] === 0) {
          state[o] = 1;
          stack.push(o);
          pushed = true;
          break;
        }
      }
      if (!pushed) {
        stack.pop();
        state[v] = 2;
        out[n++] = v;
      }
    }
  }
  return out;
}
