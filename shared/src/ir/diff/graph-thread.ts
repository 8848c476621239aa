import type { DocumentKind } from '../../model/document';
import { graphBuffers, postedGraph, receivedGraph, type DiffGraphData, type PostedGraph } from './graph-data';
import { readDiffGraph } from './side-build';

/**
 * What a thread reading one side of a diff is sent: the text and its kind. Such a thread imports
 * this module alone (`@seam/shared/ir/diff-thread`), not the whole IR package, so it starts fast.
 */
export interface GraphRequest {
  readonly text: string;
  readonly kind: DocumentKind;
}

/** Its one answer: the side's graph (its columns transferred), or why there is none. */
export type GraphReply = { readonly ok: true; readonly graph: PostedGraph } | { readonly ok: false; readonly message: string };

/**
 * A reading thread's work: the graph of the text it was sent, with the buffers to transfer
 * back. `readDiffGraph` never throws on user input, so a failed reply means a broken thread.
 */
export function answerGraphRequest(r: GraphRequest): { readonly reply: GraphReply; readonly transfer: ArrayBuffer[] } {
  try {
    const graph = postedGraph(readDiffGraph(r.text, r.kind));
    return { reply: { ok: true, graph }, transfer: graphBuffers(graph) };
  } catch (err) {
    return { reply: { ok: false, message: err instanceof Error ? err.message : String(err) }, transfer: [] };
  }
}

/** The graph in a reading thread's reply; throws its message when it failed. */
export function graphOfReply(r: GraphReply): DiffGraphData {
  if (!r.ok) throw new Error(`reading a side of the diff failed: ${r.message}`);
  return receivedGraph(r.graph);
}
