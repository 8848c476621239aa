import type { DocumentMeta } from '@seam/shared/model';

/** A run of the document list: one loose document, or the dumps of one capture. */
export type DocumentGroup =
  | { readonly kind: 'single'; readonly doc: DocumentMeta }
  | { readonly kind: 'capture'; readonly captureId: string; readonly label: string; readonly docs: readonly DocumentMeta[] };

/** The order dumps of a capture are listed in: the layers top down, then the rest. */
const LAYER_ORDER: Readonly<Record<string, number>> = { jaxpr: 0, stablehlo: 1, hlo: 2, 'hlo-opt': 3, trace: 4, text: 5 };

/**
 * Groups the document list by capture: the dumps sharing a `captureId` become one group, placed
 * where its first dump was and named "capture #N" in order of appearance; other documents stay
 * as they are.
 */
export function groupDocuments(list: readonly DocumentMeta[]): DocumentGroup[] {
  const out: DocumentGroup[] = [];
  const groups = new Map<string, DocumentMeta[]>();
  for (const d of list) {
    if (!d.captureId) {
      out.push({ kind: 'single', doc: d });
      continue;
    }
    const members = groups.get(d.captureId);
    if (members) {
      members.push(d);
      continue;
    }
    const docs = [d];
    groups.set(d.captureId, docs);
    out.push({ kind: 'capture', captureId: d.captureId, label: `capture #${groups.size}`, docs });
  }
  for (const docs of groups.values()) docs.sort((a, b) => (LAYER_ORDER[a.kind] ?? 9) - (LAYER_ORDER[b.kind] ?? 9));
  return out;
}
