import { analyze } from '@seam/shared/ir';
import type { DocumentKind } from '@seam/shared/model';

/** A request to the analysis worker: one dump's text and kind, with an id to answer under. */
export interface AnalyzeRequest {
  readonly id: number;
  readonly text: string;
  readonly kind: DocumentKind;
}

// Runs the IR core off the main thread; `analyze` never throws on user input, so every request is answered.
self.onmessage = (e: MessageEvent<AnalyzeRequest>) => {
  const { id, text, kind } = e.data;
  self.postMessage({ id, analysis: analyze(text, kind) });
};
