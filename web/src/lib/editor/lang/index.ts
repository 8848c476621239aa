import type { StreamParser } from '@codemirror/language';
import { foldGutter, foldKeymap } from '@codemirror/language';
import type { Extension } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import type { DocumentKind } from '@seam/shared/model';
import { irFolding } from './fold';
import { irHighlightTheme } from './highlight';
import { hloParser } from './hlo';
import { jaxprParser } from './jaxpr';
import { mlirParser } from './mlir';
import { viewportHighlighter } from './view-highlight';

export { blockEnd, irFolding } from './fold';
export { hloParser } from './hlo';
export { jaxprParser } from './jaxpr';
export { mlirParser } from './mlir';
export { viewportHighlighter } from './view-highlight';

/** The tokenizer of a document kind; none for traces and notes. */
export function parserFor(kind: DocumentKind): StreamParser<unknown> | null {
  switch (kind) {
    case 'jaxpr':
      return jaxprParser as StreamParser<unknown>;
    case 'stablehlo':
      return mlirParser as StreamParser<unknown>;
    case 'hlo':
    case 'hlo-opt':
      return hloParser as StreamParser<unknown>;
    default:
      return null;
  }
}

/** Highlighting of the visible lines plus folding (gutter and keys) for an IR document of `kind`; nothing for other kinds. */
export function irLanguage(kind: DocumentKind): Extension {
  const parser = parserFor(kind);
  if (!parser) return [];
  return [viewportHighlighter(parser), irHighlightTheme, irFolding(), foldGutter(), keymap.of(foldKeymap)];
}
