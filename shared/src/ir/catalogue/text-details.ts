import { parseHlo } from '../hlo/parser';
import { parseJaxpr } from '../jaxpr/parser';
import type { Jaxpr } from '../jaxpr/ast';
import { parseMlir } from '../mlir/parser';
import type { MlirOperation } from '../mlir/ast';
import { isCastOp, isCustomCallOp, normalOp } from './classify';
import { CatalogueLayer } from './types';

/** The operand a cast reads: its name as the layer prints it, and its type when the op prints one. */
export interface CastSource {
  readonly name: string;
  readonly type?: string;
}

/** What the index does not keep and the catalogue reads from a dump's text, by op start offset. */
export interface TextDetails {
  /** The operand of each cast (`a`, `%arg1`, `param_0.11`), for its type among the index's values. */
  readonly casts: ReadonlyMap<number, CastSource>;
  /** StableHLO: the target of each `stablehlo.custom_call` (`Sharding`, `annotate_device_placement`). */
  readonly targets: ReadonlyMap<number, string>;
}

/**
 * Reads a dump's text again with its dialect's parser for what the index keeps no trace of: casts'
 * operands and StableHLO custom calls' targets, keyed by the op's start offset (its cross-layer key's
 * `from`). Never throws.
 */
export function readTextDetails(layer: CatalogueLayer, text: string): TextDetails {
  const casts = new Map<number, CastSource>();
  const targets = new Map<number, string>();
  if (layer === CatalogueLayer.jaxpr) {
    const visit = (j: Jaxpr): void => {
      for (const eq of j.equations) {
        const a = eq.invars[0];
        if (isCastOp(normalOp(eq.primitive)) && a && !a.literal) casts.set(eq.from, a.type ? { name: a.text, type: a.type } : { name: a.text });
        for (const p of eq.params) for (const inner of p.jaxprs) visit(inner);
      }
    };
    for (const j of parseJaxpr(text).ast.jaxprs) visit(j);
  } else if (layer === CatalogueLayer.stablehlo) {
    const visit = (ops: readonly MlirOperation[]): void => {
      for (const op of ops) {
        const a = op.operands[0];
        const name = normalOp(op.name);
        if (isCastOp(name) && a) casts.set(op.from, op.operandTypes[0] ? { name: a.name, type: op.operandTypes[0] } : { name: a.name });
        // `@Sharding`, or `"Sharding"` as older printers quote it.
        if (isCustomCallOp(name) && op.symbol) targets.set(op.from, op.symbol.replace(/^@"?|"$/g, ''));
        for (const r of op.regions) for (const b of r.blocks) visit(b.ops);
      }
    };
    for (const c of parseMlir(text).ast.chunks) visit(c.ops);
  } else {
    const take = (ins: { readonly opcode: string; readonly operands: readonly string[]; readonly from: number }) => {
      const a = ins.operands[0];
      if (ins.opcode === 'convert' && a) casts.set(ins.from, { name: a });
    };
    parseHlo(text, {
      operandsOf: new Set(['convert']),
      instruction: take,
      computation(c) {
        for (const ins of c.instructions) take(ins);
      },
      module() {},
    });
  }
  return { casts, targets };
}
