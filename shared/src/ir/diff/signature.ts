import type { SourceRef } from '../types';
import type { DiffGraph } from './side';
import type { MatchTier } from './types';

const NO_SOURCE: SourceRef = Object.freeze({});

/** What a tier puts in an op's own part of its signature, and how deep it takes operands. */
export interface Tier {
  readonly tier: MatchTier;
  readonly opName: boolean;
  readonly source: boolean;
  readonly depth: number;
}

/**
 * Both sides' signature numbers for one own-part variant, level by level (level d: the op and its
 * operands d deep), each computed when first asked for: the tiers after the first ask only for the
 * few ops left and their operands.
 */
export class Levels {
  // One intern table for both sides, so equal names and texts get equal numbers.
  private readonly intern = new Map<string, number>();
  /** Source object → the number of its op_name/source text in `intern`. */
  private readonly sources = new Map<SourceRef, number>();
  private readonly graphs: [DiffGraph, DiffGraph | undefined];
  /** By side, then depth: NaN until computed. */
  private readonly memo: [Float64Array[], Float64Array[]] = [[], []];

  /** B may come later (`meet`): A's numbers can be worked out while B is still being read. */
  constructor(a: DiffGraph, b: DiffGraph | undefined, private readonly tier: Tier) {
    this.graphs = [a, b];
  }

  /** Gives B, once read, to levels made with A alone. */
  meet(b: DiffGraph): void {
    this.graphs[1] = b;
  }

  /**
   * Node `i` of side `side` (0: A, 1: B) at `depth`. Past level 0, a 53-bit hash of the op's
   * number at the level below and its operands' in order (two 32-bit mixes), far cheaper than
   * building and interning a string per op; two different signatures share a hash with odds of
   * about n²/2⁵³ (10⁻⁴ for a million ops).
   */
  sig(side: 0 | 1, i: number, depth: number): number {
    const g = this.graphs[side] as DiffGraph;
    const level = this.level(side, depth);
    const known = level[i] as number;
    if (!Number.isNaN(known)) return known;
    let v: number;
    if (depth === 0) {
      v = this.own(g, i);
    } else {
      const self = this.sig(side, i, depth - 1);
      let h1 = mix(0x9e3779b9, self);
      let h2 = mix(0x85ebca6b, self);
      for (let k = g.opFrom[i] as number; k < (g.opFrom[i + 1] as number); k++) {
        const o = g.operands[k] as number;
        const x = o < 0 ? -1 : this.sig(side, o, depth - 1);
        h1 = mix(h1, x);
        h2 = mix(h2 ^ 0x27d4eb2f, x);
      }
      v = (h1 >>> 0) * 0x200000 + (h2 >>> 11);
    }
    level[i] = v;
    return v;
  }

  /** Side `side`'s numbers at `depth` as computed so far, by node (NaN where not yet asked for). */
  level(side: 0 | 1, depth: number): Float64Array {
    const levels = this.memo[side];
    let level = levels[depth];
    if (!level) {
      level = new Float64Array((this.graphs[side] as DiffGraph).count).fill(NaN);
      levels[depth] = level;
    }
    return level;
  }

  private id(s: string): number {
    let n = this.intern.get(s);
    if (n === undefined) {
      n = this.intern.size;
      this.intern.set(s, n);
    }
    return n;
  }

  /**
   * An op's own part, hashed from interned numbers (no string is built per op): opcode, type
   * without layout, its number (parameter, tuple element), custom-call target, then op_name and
   * source position as the tier wants them. The source's number is worked out once per distinct
   * source object (the index shares one among the instructions printing the same metadata) and
   * interned by value, so equal sources of the two modules get one number.
   */
  private own(g: DiffGraph, i: number): number {
    const opcode = this.id(g.opcode[i] as string);
    const type = this.id(g.type[i] as string);
    const target = g.target[i] === undefined ? -1 : this.id(g.target[i] as string);
    const number = g.number[i] as number;
    const source = this.sourceId(g, i);
    const h1 = mix(mix(mix(mix(mix(0x2545f491, opcode), type), number), target), source);
    const h2 = mix(mix(mix(mix(mix(0x68e31da4, source), target), number), type), opcode);
    return (h1 >>> 0) * 0x200000 + (h2 >>> 11);
  }

  private sourceId(g: DiffGraph, i: number): number {
    const tier = this.tier;
    if (!tier.opName && !tier.source) return -1;
    const source = g.source(i) ?? NO_SOURCE;
    let id = this.sources.get(source);
    if (id === undefined) {
      let text = '\u0000';
      if (tier.opName) text += `@${source.opName ?? ''}`;
      if (tier.source) text += ` ${source.file ?? ''}:${source.line ?? ''}:${source.column ?? ''}`;
      id = this.id(text);
      this.sources.set(source, id);
    }
    return id;
  }
}

/** Mixes a number (an interned id or an earlier hash, up to 53 bits) into a 32-bit hash. */
function mix(h: number, v: number): number {
  const lo = v | 0;
  const hi = Math.floor(v / 0x100000000) | 0;
  h = Math.imul(h ^ lo, 0xcc9e2d51);
  h = (h << 15) | (h >>> 17);
  h = Math.imul(h ^ hi, 0x1b873593);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}
