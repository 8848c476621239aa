import type { Extension } from '@codemirror/state';
import { foldGutter, foldKeymap, type StreamLanguage } from '@codemirror/language';
import { keymap } from '@codemirror/view';
import type { DocumentKind } from '@seam/shared/model';
import { irFolding } from './fold';
import { irHighlighting } from './highlight';
import { hloLanguage } from './hlo';
import { jaxprLanguage } from './jaxpr';
import { mlirLanguage } from './mlir';

export { blockEnd, irFolding } from './fold';
export { hloLanguage, hloParser } from './hlo';
export { jaxprLanguage, jaxprParser } from './jaxpr';
export { mlirLanguage, mlirParser } from './mlir';

/** The CodeMirror language of a document kind; plain text (no language) for traces and notes. */
export function languageFor(kind: DocumentKind): StreamLanguage<unknown> | null {
  switch (kind) {
    case 'jaxpr':
      return jaxprLanguage;
    case 'stablehlo':
      return mlirLanguage;
    case 'hlo':
    case 'hlo-opt':
      return hloLanguage;
    default:
      return null;
  }
}

/** Highlighting plus folding (gutter and keys) for an IR document of `kind`; nothing for other kinds. */
export function irLanguage(kind: DocumentKind): Extension {
  const lang = languageFor(kind);
  if (!lang) return [];
  return [lang, irHighlighting(), irFolding(), foldGutter(), keymap.of(foldKeymap)];
}
