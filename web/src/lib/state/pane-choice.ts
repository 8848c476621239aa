import type { DocumentKind } from '@seam/shared/model';

/**
 * The pane that a document chosen from the list replaces in split view: the one already showing
 * it, else the first showing a document of its kind (its layer: a jaxpr replaces the jaxpr pane);
 * -1 when no pane holds its kind, and split view gives way to the document alone.
 */
export function paneForDocument(panes: readonly { readonly id: string; readonly kind: DocumentKind | undefined }[], doc: { readonly id: string; readonly kind: DocumentKind }): number {
  const same = panes.findIndex((p) => p.id === doc.id);
  return same >= 0 ? same : panes.findIndex((p) => p.kind === doc.kind);
}
