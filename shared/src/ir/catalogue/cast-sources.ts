import { parseHlo } from '../hlo/parser';
import { parseJaxpr } from '../jaxpr/parser';
import type { Jaxpr } from '../jaxpr/ast';
import { parseMlir } from '../mlir/parser';
import type { MlirOperation } from '../mlir/ast';
import { isCastOp, normalOp } from './classify';
import { CatalogueLayer } from './types';

/**
 * The operand each cast of a dump reads, by the cast's start offset (its cross-layer key's `from`):
 * the name the layer's own parser read (`a`, `%arg1`, `param_0.11`), for the catalogue to look its
 * type up among the index's values, or its printed type when the op prints one. The index keeps no
 * operands, so this reads the text once more with the dialect's parser. Never throws.
 */
export function castSources(layer: CatalogueLayer, text: string): Map<number, { readonly name?: string; readonly type?: string }> {
  const out = new Map<number, { name?: string; type?: string }>();
  if (layer === CatalogueLayer.jaxpr) {
    const visit = (j: Jaxpr): void => {
      for (const eq of j.equations) {
        const a = eq.invars[0];
        if (isCastOp(normalOp(eq.primitive)) && a && !a.literal) out.set(eq.from, a.type ? { name: a.text, type: a.type } : { name: a.text });
        for (const p of eq.params) for (const inner of p.jaxprs) visit(inner);
      }
    };
    for (const j of parseJaxpr(text).ast.jaxprs) visit(j);
  } else if (layer === CatalogueLayer.stablehlo) {
    const visit = (ops: readonly MlirOperation[]): void => {
      for (const op of ops) {
        const a = op.operands[0];
        if (isCastOp(normalOp(op.name)) && a) out.set(op.from, op.operandTypes[0] ? { name: a.name, type: op.operandTypes[0] } : { name: a.name });
        for (const r of op.regions) for (const b of r.blocks) visit(b.ops);
      }
    };
    for (const c of parseMlir(text).ast.chunks) visit(c.ops);
  } else {
    parseHlo(text, {
      operandsOf: new Set(['convert']),
      instruction(ins) {
        const a = ins.operands[0];
        if (ins.opcode === 'convert' && a) out.set(ins.from, { name: a });
      },
      computation(c) {
        for (const ins of c.instructions) {
          const a = ins.operands[0];
          if (ins.opcode === 'convert' && a) out.set(ins.from, { name: a });
        }
      },
      module() {},
    });
  }
  return out;
}
