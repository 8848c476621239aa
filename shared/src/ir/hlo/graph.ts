import type { HloComputation, HloInstruction, HloModule } from './ast';

/** How a computation is called from another one, for following values across the call. */
export interface CallSite {
  readonly caller: HloInstruction;
  readonly scope: HloComputation;
  readonly role: 'call' | 'while-body' | 'while-condition' | 'branch';
  /** For branches: the branch index, so parameter 0 is operand `index + 1`. */
  readonly index: number;
}

/**
 * The call structure of one module: computations by name, the entry, which fusion calls each
 * fused computation, and the call sites of while bodies, conditional branches and `call` targets.
 */
export class ModuleGraph {
  readonly computations = new Map<string, HloComputation>();
  readonly entry: HloComputation | undefined;
  /** Fused computation name → the fusion instruction that calls it (the first, if several do). */
  readonly fusionCaller = new Map<string, HloInstruction>();
  /** Computation name → where it is called as a while body/condition, branch or `call` target. */
  readonly callSites = new Map<string, CallSite[]>();
  /** Computation name → instructions other than parameters, counted before any is released. */
  readonly opCounts = new Map<string, number>();
  private readonly names = new Map<HloComputation, Map<string, HloInstruction>>();

  /**
   * `entry` is for a module whose computations are only some of its own (the rest already
   * indexed and dropped); by default it is the one marked `ENTRY`, else the last.
   */
  constructor(readonly module: HloModule, entry?: HloComputation) {
    for (const c of module.computations) this.computations.set(c.name, c);
    // XLA takes the last computation as the entry when none is marked `ENTRY`.
    this.entry = entry ?? module.computations.find((c) => c.isEntry) ?? module.computations[module.computations.length - 1];
    for (const scope of module.computations) {
      let ops = 0;
      for (const ins of scope.instructions) {
        this.noteCalls(scope, ins);
        if (ins.opcode !== 'parameter') ops++;
      }
      this.opCounts.set(scope.name, ops);
    }
  }

  private noteCalls(scope: HloComputation, ins: HloInstruction): void {
    switch (ins.opcode) {
      case 'fusion':
        for (const c of ins.attrs?.calls ?? []) if (!this.fusionCaller.has(c)) this.fusionCaller.set(c, ins);
        return;
      case 'while':
        this.addSite(ins.attrs?.body, { caller: ins, scope, role: 'while-body', index: 0 });
        this.addSite(ins.attrs?.condition, { caller: ins, scope, role: 'while-condition', index: 0 });
        return;
      case 'conditional':
        ins.attrs?.branches?.forEach((b, index) => this.addSite(b, { caller: ins, scope, role: 'branch', index }));
        return;
      case 'call':
        this.addSite(ins.attrs?.toApply ?? ins.attrs?.calls?.[0], { caller: ins, scope, role: 'call', index: 0 });
        return;
    }
  }

  private addSite(name: string | undefined, site: CallSite): void {
    if (!name) return;
    const list = this.callSites.get(name);
    if (list) list.push(site);
    else this.callSites.set(name, [site]);
  }

  /** The instruction called `name` in `scope`, if any. */
  lookup(scope: HloComputation, name: string): HloInstruction | undefined {
    let map = this.names.get(scope);
    if (!map) {
      map = new Map();
      for (const ins of scope.instructions) map.set(ins.name, ins);
      this.names.set(scope, map);
    }
    return map.get(name);
  }

  /**
   * Drops a fused computation's instructions once they are indexed, so a large dump does not hold
   * its whole parse tree and its whole index at once. Only fused computations are released: the
   * spill analysis still walks the others. Returns whether it released.
   */
  release(scope: HloComputation): boolean {
    if (!this.fusionCaller.has(scope.name) || this.callSites.has(scope.name) || scope === this.entry) return false;
    this.names.delete(scope);
    scope.instructions.length = 0;
    return true;
  }

  /** The ROOT of a computation (the last instruction when none is marked). */
  root(scope: HloComputation): HloInstruction | undefined {
    const list = scope.instructions;
    for (let i = list.length - 1; i >= 0; i--) if (list[i]?.isRoot) return list[i];
    return list[list.length - 1];
  }

  /**
   * Computations that run as a sequence of kernels: the entry and, transitively, the while bodies
   * and conditions, conditional branches and `call` targets it reaches. Fused computations and
   * reducers (`to_apply` of reduce, sort, all-reduce…) are not among them.
   */
  kernelScopes(): HloComputation[] {
    const out: HloComputation[] = [];
    const seen = new Set<HloComputation>();
    const visit = (c: HloComputation | undefined) => {
      if (!c || seen.has(c)) return;
      seen.add(c);
      out.push(c);
      for (const ins of c.instructions) {
        if (ins.opcode === 'while') {
          visit(this.computations.get(ins.attrs?.body ?? ''));
          visit(this.computations.get(ins.attrs?.condition ?? ''));
        } else if (ins.opcode === 'conditional') {
          for (const b of ins.attrs?.branches ?? []) visit(this.computations.get(b));
        } else if (ins.opcode === 'call') {
          visit(this.computations.get(ins.attrs?.toApply ?? ins.attrs?.calls?.[0] ?? ''));
        }
      }
    };
    visit(this.entry);
    return out;
  }
}
