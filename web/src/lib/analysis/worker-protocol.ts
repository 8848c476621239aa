import type { Diagnostic, MappingRow } from '@seam/shared/ir';
import type { DocumentKind } from '@seam/shared/model';
import type { ViewIndex } from '../editor/ir/lookup';

/** A document's analysis as the views receive it from the worker (the full one stays there). */
export interface ViewAnalysis {
  readonly index: ViewIndex;
  readonly diagnostics: readonly Diagnostic[];
}

/** What linking three layers gives the main thread: the mapping rows and the span end of each jaxpr equation. */
export interface LinkResult {
  readonly rows: readonly MappingRow[];
  /** `[line, to]` of each jaxpr cross-layer key: the lines an equation spans. */
  readonly jaxprSpans: ReadonlyArray<readonly [number, number]>;
  /** The StableHLO was printed without `loc(…)` debug info, so none of its ops could be joined. */
  readonly stablehloWithoutLocs: boolean;
}

/**
 * Requests to the analysis worker, each answered once under its `id`:
 * - `load`: fetch the stored views part of `docId` (`url?part=views`); answered `missing` when the
 *   server has no analysis for it. The keys part (`url?part=keys`) is fetched only when the
 *   document is first linked, or asked for by `prefetch`;
 * - `prefetch`: fetch what linking `docId` will need (its keys part), so that a link asked for
 *   soon after finds it in; answered once it is in;
 * - `analyze`: run the IR core on `text` (a dump the server has not indexed);
 * - `link`: join the three layers already loaded in the worker.
 */
export type WorkerRequest =
  | { readonly type: 'load'; readonly id: number; readonly docId: string; readonly url: string; readonly token: string }
  | { readonly type: 'prefetch'; readonly id: number; readonly docId: string }
  | { readonly type: 'analyze'; readonly id: number; readonly docId: string; readonly text: string; readonly kind: DocumentKind }
  | { readonly type: 'link'; readonly id: number; readonly jaxpr: string; readonly stablehlo: string; readonly hlo: string };

/** The worker's answer to one request. */
export type WorkerReply =
  | { readonly id: number; readonly ok: true; readonly view?: ViewAnalysis; readonly missing?: true; readonly link?: LinkResult }
  | { readonly id: number; readonly ok: false; readonly message: string };
