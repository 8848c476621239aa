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
 * A document's title inside its module group, without what the group label already says: XLA's
 * `module_0042.jit_step.after_optimizations.txt` reads `after_optimizations.txt`. Other titles
 * are kept whole.
 */
export function titleInGroup(d: DocumentMeta): string {
  const m = d.module;
  if (!m) return d.title;
  const at = d.title.indexOf(`${m.name}.`);
  const rest = at >= 0 ? d.title.slice(at + m.name.length + 1) : '';
  return rest.length > 0 ? rest : d.title;
}

/** A pass dump as a row of its group: `0005 after call-inliner` (or `before`), with its pipeline when known. */
export function passLabel(d: DocumentMeta): string {
  const p = d.module?.pass;
  if (!p) return d.title;
  return `${String(p.index).padStart(4, '0')} ${p.when} ${p.name}${p.pipeline ? ` · ${p.pipeline}` : ''}`;
}
