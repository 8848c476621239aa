import type { LoopInfo } from '../types';
import type { ModuleGraph } from './graph';

/**
 * What the spill pass needs to know of a module's loops, gathered as its instructions are read:
 * each while's `known_trip_count`, and the fused computations whose root is a dynamic-update-slice
 * (a fusion calling one updates its buffer in place).
 */
export interface LoopFacts {
  /** While instruction name → its known trip count. */
  readonly tripCounts: Map<string, number>;
  /** Fused computations whose ROOT is a `dynamic-update-slice`. */
  readonly updateRoots: Set<string>;
}

/** Empty facts, to fill while a module is read. */
export function loopFacts(): LoopFacts {
  return { tripCounts: new Map(), updateRoots: new Set() };
}

/**
 * The trip count XLA proved for a while, from the instruction's text:
 * `backend_config={"known_trip_count":{"n":"8"},…}`, or the same JSON printed as a string
 * (`backend_config="{\"known_trip_count\":{\"n\":\"8\"}}"`). Undefined when absent.
 */
export function knownTripCount(instructionText: string): number | undefined {
  const m = /\\?"known_trip_count\\?"\s*:\s*\{\s*\\?"n\\?"\s*:\s*\\?"?(\d{1,15})/.exec(instructionText);
  return m ? Number(m[1]) : undefined;
}

/**
 * Where each kernel-level computation runs: `loopOf(name)` gives the whiles around it, outermost
 * first, and their trip counts multiplied; undefined outside loops. Branches and `call` targets
 * run as often as their caller; a computation called from several places takes its first caller.
 */
export function loopsOf(graph: ModuleGraph, facts: LoopFacts): (scope: string) => LoopInfo | undefined {
  const memo = new Map<string, LoopInfo | null>();
  const of = (scope: string, seen: Set<string>): LoopInfo | null => {
    const known = memo.get(scope);
    if (known !== undefined) return known;
    const site = graph.callSites.get(scope)?.[0];
    if (!site || seen.has(scope)) return null;
    seen.add(scope);
    const outer = of(site.scope.name, seen);
    let out = outer;
    if (site.role === 'while-body' || site.role === 'while-condition') {
      const n = facts.tripCounts.get(site.caller.name);
      const trips = outer && outer.trips === undefined ? undefined : n === undefined ? undefined : n * (outer?.trips ?? 1);
      out = trips === undefined ? { whiles: [...(outer?.whiles ?? []), site.caller.name] } : { whiles: [...(outer?.whiles ?? []), site.caller.name], trips };
    }
    memo.set(scope, out);
    return out;
  };
  return (scope) => of(scope, new Set()) ?? undefined;
}
