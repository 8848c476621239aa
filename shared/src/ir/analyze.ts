import type { DocumentKind } from '../model/document';
import { detectKind } from './detect';
import type { Analysis } from './types';

/**
 * Parses and indexes one dump. Never throws on user input: what cannot be read comes back as
 * diagnostics. `kind` defaults to `detectKind(text)`.
 */
export function analyze(text: string, kind: DocumentKind = detectKind(text)): Analysis {
  return {
    index: { kind, bytes: text.length, lines: text.split('\n').length, outline: [], values: [], dots: [], fusions: [], spills: [], keys: [] },
    diagnostics: [],
  };
}
