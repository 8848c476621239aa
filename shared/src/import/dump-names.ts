import { DocumentKind } from '../model/document';
import { baseName, folderOf } from './paths';

/** A per-pass dump's place in the pipeline: `0004.simplification.after_algsimp.before_dce` → index 4, `simplification`, `algsimp`, after. */
export interface PassName {
  readonly index: number;
  readonly pipeline?: string;
  readonly name: string;
  readonly when: 'before' | 'after';
}

/** What a file's name says, before its content is read. */
export type NameInfo =
  | { readonly what: 'skip'; readonly reason: string }
  /** A profiler trace: `*.xplane.pb`, or Chrome/Perfetto JSON gzipped (`*.json.gz`). */
  | { readonly what: 'trace' }
  | {
      readonly what: 'document';
      /** The kind the name fixes; absent when the content decides. */
      readonly kind?: DocumentKind;
      /** An XLA dump file (`--xla_dump_to`): its module, and the folder the module's files sit in. */
      readonly xla?: { readonly number: number; readonly name: string; readonly folder: string; readonly pass?: PassName };
      /** A file JAX wrote (`JAX_DUMP_IR_TO`): its counter and the jit module it is of. */
      readonly jax?: { readonly counter: number; readonly module: string; readonly folder: string };
    };

/** `module_0042.jit_train_step.<rest>`; XLA's module names hold no dots (it writes `jit__lambda_` for `<lambda>`). */
const XLA_FILE = /^module_(\d+)\.([^.]+)\.(.+)$/;
/** The folder XLA writes per module beside its files: `module_0006.jit_f/module.mlir`. */
const XLA_MODULE_FOLDER = /^module_(\d+)\.([^./]+)$/;
/** A per-pass dump (`--xla_dump_hlo_pass_re`): `0012.simplification.after_pipeline-start.before_algsimp.txt`. */
const PASS_DUMP = /^(\d{4,})\.(.+)\.txt$/;
/** `jax_ir0003_jit_f_compile.mlir` (stage last), from `JAX_DUMP_IR_TO`. */
const JAX_IR = /^jax_ir(\d+)_(.+)\.mlir$/;
/** The stages JAX names in `jax_ir…` files; older versions wrote `before_optimizations`. */
const JAX_STAGES = ['compile', 'export', 'verification', 'before_refine_polymorphic_shapes', 'before_optimizations', 'after_optimizations'];
/** `jax_000003_f.jaxpr.txt`, from `JAX_DUMP_IR_MODES=jaxpr`: named by the function, not the module. */
const JAX_JAXPR = /^jax_(\d+)_(.+)\.jaxpr\.txt$/;

/** Extensions of files that are not text Seam reads, and why each is left out. */
const SKIPPED: readonly (readonly [RegExp, string])[] = [
  [/\.(?:pb|pbtxt\.pb|proto)$/, 'a binary protobuf (HloProto, compile options); Seam reads the text dumps (--xla_dump_hlo_as_text)'],
  [/\.(?:o|so|a|obj|bin|cubin|fatbin|neff)$/, 'an object or binary file'],
  [/\.(?:html|dot|url)$/, 'a graph rendering (--xla_dump_hlo_as_html/dot/url); Seam reads the text dumps'],
  [/\.(?:zip|tar|tgz|tar\.gz|gz|bz2|xz|zst|7z)$/, 'an archive or compressed file inside the import; unpack it first'],
  [/\.(?:png|jpe?g|gif|svg|pdf|webp)$/, 'an image or document, not a dump'],
];

/**
 * What `path` (normalized, relative) is by its name alone: skipped with a reason, a trace, or a
 * document whose kind the name may fix and which may belong to an XLA or JAX module. Pure; never throws.
 */
export function recognizeName(path: string): NameInfo {
  const base = baseName(path);
  if (path.split('/').some((s) => s.startsWith('.') || s === '__MACOSX')) return { what: 'skip', reason: 'a hidden file' };
  if (/\.xplane\.pb$/.test(base) || /\.json\.gz$/.test(base)) return { what: 'trace' };
  for (const [ext, reason] of SKIPPED) if (ext.test(base)) return { what: 'skip', reason };
  const xla = XLA_FILE.exec(base);
  if (xla) {
    const pass = passOf(xla[3]!);
    // A pass dump is HLO before or after optimization by its content; the name fixes the others.
    return { what: 'document', ...(pass.pass ? {} : xlaKind(xla[3]!)), xla: { number: Number(xla[1]), name: xla[2]!, folder: folderOf(path), ...pass } };
  }
  const parent = folderOf(path);
  const inModule = XLA_MODULE_FOLDER.exec(baseName(parent));
  if (inModule) return { what: 'document', xla: { number: Number(inModule[1]), name: inModule[2]!, folder: folderOf(parent) } };
  const ir = JAX_IR.exec(base);
  if (ir) {
    const stage = JAX_STAGES.find((s) => ir[2]!.endsWith(`_${s}`));
    const module = stage ? ir[2]!.slice(0, -stage.length - 1) : ir[2]!;
    return { what: 'document', kind: DocumentKind.stablehlo, jax: { counter: Number(ir[1]), module, folder: parent } };
  }
  const jaxpr = JAX_JAXPR.exec(base);
  if (jaxpr) return { what: 'document', kind: DocumentKind.jaxpr, jax: { counter: Number(jaxpr[1]), module: `jit_${jaxpr[2]!}`, folder: parent } };
  return { what: 'document' };
}

/** The kind an XLA file's name fixes: `before_optimizations.txt` HLO, `cpu_after_optimizations.txt` optimized HLO, its buffer assignment and memory report. */
function xlaKind(rest: string): { kind?: DocumentKind } {
  if (/[.-]buffer-assignment\.txt$/.test(rest)) return { kind: DocumentKind.bufferAssignment };
  if (/[.-]memory-usage-report\.txt$/.test(rest)) return { kind: DocumentKind.memoryReport };
  if (/(?:^|[._])after_optimizations\.txt$/.test(rest)) return { kind: DocumentKind.hloOpt };
  if (/(?:^|[._])before_optimizations\.txt$/.test(rest)) return { kind: DocumentKind.hlo };
  return {};
}

/** A per-pass dump's pass, e.g. `0030.copy-insertion.after_adding_special-case_copies.txt` → 30, `copy-insertion`, `adding_special-case_copies`, after. */
function passOf(rest: string): { pass?: PassName } {
  const m = PASS_DUMP.exec(rest);
  if (!m) return {};
  const index = Number(m[1]);
  const body = m[2]!;
  const after = body.indexOf('.after_');
  if (after >= 0) {
    const tail = body.slice(after + '.after_'.length);
    const next = tail.indexOf('.before_');
    return { pass: { index, pipeline: body.slice(0, after), name: next >= 0 ? tail.slice(0, next) : tail, when: 'after' } };
  }
  const before = body.indexOf('.before_');
  if (before >= 0) return { pass: { index, pipeline: body.slice(0, before), name: body.slice(before + '.before_'.length), when: 'before' } };
  return { pass: { index, name: body, when: 'after' } };
}
