import { isPassDump, layerGroups, type DocumentMeta, type LayerGroup } from '@seam/shared/model';

/** One entry of the document list: a loose document, or a capture or module group with its pass dumps apart. */
export interface ListGroup {
  readonly key: string;
  readonly kind: LayerGroup['kind'];
  /** "capture #2", "module 0042 jit_train_step"; a loose document's title. */
  readonly label: string;
  /** The group's documents other than pass dumps, layers top down (see `layerGroups`). */
  readonly docs: readonly DocumentMeta[];
  /** Per-pass dumps, in pass order. */
  readonly passes: readonly DocumentMeta[];
}

/** The document list as the side panel shows it: `layerGroups`, with each group's pass dumps set apart. */
export function listGroups(list: readonly DocumentMeta[]): ListGroup[] {
  return layerGroups(list).map((g) => ({ key: g.key, kind: g.kind, label: g.label, docs: g.docs.filter((d) => !isPassDump(d)), passes: g.docs.filter(isPassDump) }));
}

/**
 * A document's title inside its module group, without what the group label and the badge already
 * say: the folders it sat in, and XLA's `module_0042.jit_step.` prefix, so that
 * `dump/xla/module_0042.jit_step.cpu_after_optimizations.txt` reads `cpu_after_optimizations.txt`
 * and `dump/jax/jax_000003_f.jaxpr.txt` reads `jax_000003_f.jaxpr.txt`. Other titles are kept whole.
 */
export function titleInGroup(d: DocumentMeta): string {
  const m = d.module;
  if (!m) return d.title;
  const base = d.title.slice(d.title.lastIndexOf('/') + 1) || d.title;
  const prefix = /^module_\d+\.([^.]+)\./.exec(base);
  const rest = prefix?.[1] === m.name && base.length > prefix[0].length ? base.slice(prefix[0].length) : base;
  return XLA_PARTS.find(([re]) => re.test(rest))?.[1](rest) ?? rest;
}

/**
 * What XLA's file names say, in words: `cpu_after_optimizations-buffer-assignment-values.txt` and
 * `cpu_after_optimizations-live-range.txt` would both be cut to `cpu_after_opti…` in the side panel.
 */
const XLA_PARTS: ReadonlyArray<readonly [RegExp, (s: string) => string]> = [
  [/^before_optimizations\.txt$/, () => 'before optimizations'],
  [/^(\w+?)_after_optimizations\.txt$/, (s) => `after optimizations (${s.split('_after_')[0]})`],
  [/^after_optimizations\.txt$/, () => 'after optimizations'],
  [/after_optimizations-buffer-assignment\.txt$/, () => 'buffer assignment'],
  [/after_optimizations-buffer-assignment-values\.txt$/, () => 'buffer assignment: values'],
  [/after_optimizations-live-range\.txt$/, () => 'live ranges'],
  [/after_optimizations-memory-usage-report\.txt$/, () => 'memory-usage report'],
  [/^ir-no-opt\.ll$/, () => 'LLVM IR before optimization'],
  [/^ir-with-opt\.ll$/, () => 'LLVM IR'],
];

/** A pass dump as a row of its group: `0005 call-inliner` (`before` when it is the state before a pass), with its pipeline when known. */
export function passLabel(d: DocumentMeta): string {
  const p = d.module?.pass;
  if (!p) return d.title;
  return `${String(p.index).padStart(4, '0')} ${p.when === 'before' ? 'before ' : ''}${p.name}${p.pipeline ? ` · ${p.pipeline}` : ''}`;
}
