import type { DocumentKind, DocumentMeta } from './document';

/** The three layers a program has. `hlo` covers HLO before or after optimization. */
export type Layer = 'jaxpr' | 'stablehlo' | 'hlo';
export const LAYERS: readonly Layer[] = ['jaxpr', 'stablehlo', 'hlo'];

/** The layer a document kind belongs to, or null for traces, plans and texts. */
export function layerOf(kind: DocumentKind): Layer | null {
  if (kind === 'jaxpr') return 'jaxpr';
  if (kind === 'stablehlo') return 'stablehlo';
  if (kind === 'hlo' || kind === 'hlo-opt') return 'hlo';
  return null;
}

/**
 * The group a document belongs to: the capture that wrote it, or the module of the dump folder it
 * came from; `null` for a loose document. Capture and module keys never collide.
 */
export function groupKeyOf(d: DocumentMeta): string | null {
  if (d.captureId !== undefined) return `capture:${d.captureId}`;
  if (d.module !== undefined) return `module:${d.module.groupId}`;
  return null;
}

/** A pass dump (`--xla_dump_hlo_pass_re`): a step between layers, never a layer of its own. */
export const isPassDump = (d: DocumentMeta): boolean => d.module?.pass !== undefined;

/** The documents of `d`'s group in list order (just `d` for a loose document). */
export function groupOf(list: readonly DocumentMeta[], d: DocumentMeta): DocumentMeta[] {
  const key = groupKeyOf(d);
  return key === null ? [d] : list.filter((x) => groupKeyOf(x) === key);
}

/**
 * One document per layer from `docs` (pass dumps left out), preferring optimized HLO over HLO and,
 * within a kind, the last one listed unless `prefer` is of that layer.
 */
export function pickLayerDocs(docs: readonly DocumentMeta[], prefer?: string): Partial<Record<Layer, DocumentMeta>> {
  const out: Partial<Record<Layer, DocumentMeta>> = {};
  for (const d of docs) {
    const layer = layerOf(d.kind);
    if (!layer || isPassDump(d)) continue;
    const cur = out[layer];
    if (cur !== undefined && cur.id === prefer) continue;
    if (cur && cur.kind === 'hlo-opt' && d.kind === 'hlo' && d.id !== prefer) continue;
    out[layer] = d;
  }
  return out;
}

/** A group of documents as the list, the views and the export name it. */
export interface LayerGroup {
  /** `capture:<job id>`, `module:<group id>`, or `single:<document id>`. */
  readonly key: string;
  readonly kind: 'capture' | 'module' | 'single';
  /** "capture #2", "module 0042 jit_train_step", or the document's title. */
  readonly label: string;
  readonly docs: readonly DocumentMeta[];
}

/** The order a group's documents are listed in: the layers top down, then plans, traces, the rest. */
const KIND_ORDER: Readonly<Record<string, number>> = { jaxpr: 0, stablehlo: 1, hlo: 2, 'hlo-opt': 3, 'buffer-assignment': 4, 'memory-report': 5, trace: 6, text: 7 };

/** Label of a module group: `module 0042 jit_train_step`, or the name alone without a number. */
export function moduleLabel(m: NonNullable<DocumentMeta['module']>): string {
  return m.number === undefined ? m.name : `module ${String(m.number).padStart(4, '0')} ${m.name}`;
}

/**
 * Groups a document list: the documents sharing a capture or a module group become one group,
 * placed where its first document was; captures are numbered in order of appearance; other
 * documents stay single. Within a group, layers top down, pass dumps in pass order after the
 * layers they sit between.
 */
export function layerGroups(list: readonly DocumentMeta[]): LayerGroup[] {
  const out: LayerGroup[] = [];
  const members = new Map<string, DocumentMeta[]>();
  let captures = 0;
  for (const d of list) {
    const key = groupKeyOf(d);
    if (key === null) {
      out.push({ key: `single:${d.id}`, kind: 'single', label: d.title, docs: [d] });
      continue;
    }
    const docs = members.get(key);
    if (docs) {
      docs.push(d);
      continue;
    }
    const fresh = [d];
    members.set(key, fresh);
    const label = d.captureId !== undefined ? `capture #${++captures}` : moduleLabel(d.module!);
    out.push({ key, kind: d.captureId !== undefined ? 'capture' : 'module', label, docs: fresh });
  }
  for (const docs of members.values()) docs.sort(byListOrder);
  return distinctLabels(out);
}

/** Module groups of one name from different folders (two dump folders of one program) are told apart by their folder. */
function distinctLabels(groups: LayerGroup[]): LayerGroup[] {
  const count = new Map<string, number>();
  for (const g of groups) if (g.kind === 'module') count.set(g.label, (count.get(g.label) ?? 0) + 1);
  return groups.map((g) => {
    const path = g.docs[0]?.module?.path ?? '';
    const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    return g.kind === 'module' && (count.get(g.label) ?? 0) > 1 && folder !== '' ? { ...g, label: `${g.label} · ${folder}` } : g;
  });
}

function byListOrder(a: DocumentMeta, b: DocumentMeta): number {
  const pa = a.module?.pass;
  const pb = b.module?.pass;
  if (pa && pb) return pa.index - pb.index;
  if (pa || pb) return pa ? 1 : -1;
  return (KIND_ORDER[a.kind] ?? 9) - (KIND_ORDER[b.kind] ?? 9);
}
