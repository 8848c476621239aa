import { DocumentKind } from '../../model/document';

/**
 * What a re-capture renames, taken out of one line so that the same op still reads the same:
 * variable, SSA and instruction names, and source positions (an edit above shifts every line
 * number). Used only to align lines the exact comparison left unpaired.
 */
export function normalizerOf(kind: DocumentKind): (line: string) => string {
  switch (kind) {
    case DocumentKind.jaxpr:
      return normalizeJaxpr;
    case DocumentKind.stablehlo:
      return normalizeMlir;
    case DocumentKind.hlo:
    case DocumentKind.hloOpt:
      return normalizeHlo;
    default:
      return (line) => line.trim();
  }
}

const JAXPR_KEYWORDS = new Set(['in', 'let', 'lambda']);

/**
 * A jaxpr equation with its variables as `_` and no source comment:
 * `    o:f32[32] = reduce_sum[axes=(1,) out_sharding=None] n        # program.py:6:11 (mlp)` →
 * `:f32[32] = reduce_sum[axes=(1,) out_sharding=None] _`.
 */
export function normalizeJaxpr(line: string): string {
  let s = line.replace(/\s+#.*$/, '').replace(/^\s*#.*$/, '').trim();
  // A binder `d:f32[32,128]` keeps its type.
  s = s.replace(/\b[a-z]+(?=:[a-z0-9]+\[)/g, '');
  const eq = s.indexOf(' = ');
  const head = eq >= 0 ? s.slice(0, eq + 3) + (/^\w+/.exec(s.slice(eq + 3))?.[0] ?? '') : '';
  const tail = s.slice(head.length);
  // Operands: bare lowercase words after a space, `(` or `,` (not `name=relu`, not the primitive).
  return head + tail.replace(/(^|[\s(,])([a-z]+)(?=$|[\s),])/g, (m, pre: string, word: string) => (JAXPR_KEYWORDS.has(word) ? m : `${pre}_`));
}

/** An MLIR line with SSA names as `%` and locations as `#loc`: `%7 = stablehlo.divide %5, %6` → `% = stablehlo.divide %, %`. */
export function normalizeMlir(line: string): string {
  return line.trim().replace(/%[\w.$-]+/g, '%').replace(/#loc\d*/g, '#loc').replace(/loc\([^)]*\)/g, 'loc()');
}

/** An HLO line without instruction numbers or metadata: `%add.3 = f32[32,128]{1,0} add(%dot_general.0, %add.4)` → `%add = … add(%dot_general, %add)`. */
export function normalizeHlo(line: string): string {
  // Metadata (op_name, source, stack frame ids) is left out: it is long, and the diff reads it already.
  const meta = line.indexOf(', metadata={');
  return (meta >= 0 ? line.slice(0, meta) : line).trim().replace(/([A-Za-z_][\w-]*)\.\d+\b/g, '$1');
}
