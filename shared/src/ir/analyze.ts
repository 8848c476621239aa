import { DocumentKind } from '../model/document';
import { detectKind } from './detect';
import { indexHlo } from './hlo/index';
import { indexJaxpr } from './jaxpr/index';
import { indexStablehlo } from './stablehlo/index';
import type { Analysis } from './types';
import { indexBufferAssignment, indexMemoryReport } from './xla/index';

/**
 * Parses and indexes one dump. Never throws on user input: what cannot be read comes back as
 * diagnostics. `kind` defaults to `detectKind(text)` and picks the dialect indexer; HLO before and
 * after optimization share one, and only `hlo-opt` gets spill candidates.
 */
export function analyze(text: string, kind: DocumentKind = detectKind(text)): Analysis {
  switch (kind) {
    case DocumentKind.hlo:
    case DocumentKind.hloOpt:
      return indexHlo(text, kind);
    case DocumentKind.stablehlo:
      return indexStablehlo(text);
    case DocumentKind.jaxpr:
      return indexJaxpr(text);
    case DocumentKind.bufferAssignment:
      return indexBufferAssignment(text);
    case DocumentKind.memoryReport:
      return indexMemoryReport(text);
    default:
      return emptyAnalysis(text, kind);
  }
}

/** An index with nothing in it, for kinds that have no indexer (trace, text). */
function emptyAnalysis(text: string, kind: DocumentKind): Analysis {
  let lines = 1;
  for (let p = text.indexOf('\n'); p >= 0; p = text.indexOf('\n', p + 1)) lines++;
  return {
    index: { kind, bytes: text.length, lines, outline: [], values: [], dots: [], fusions: [], spills: [], keys: [] },
    diagnostics: [],
  };
}
