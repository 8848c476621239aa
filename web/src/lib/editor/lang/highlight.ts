import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import type { Extension } from '@codemirror/state';
import { tags as t } from '@lezer/highlight';
import { EditorView } from '@codemirror/view';

/**
 * Colours of IR tokens by style name (`cm-ir-t-keyword` …), from CSS variables (`--syn-*`, with
 * fixed fallbacks) so both themes read well.
 */
export const irHighlightTheme = EditorView.theme({
  '.cm-ir-t-keyword': { color: 'var(--syn-keyword, #7c3aed)' },
  '.cm-ir-t-typeName': { color: 'var(--syn-type, #0f766e)' },
  '.cm-ir-t-variableName': { color: 'var(--syn-var, #1e40af)' },
  '.cm-ir-t-definition': { color: 'var(--syn-def, #1d4ed8)', fontWeight: '600' },
  '.cm-ir-t-function, .cm-ir-t-labelName': { color: 'var(--syn-fn, #b45309)' },
  '.cm-ir-t-propertyName': { color: 'var(--syn-attr, #9333ea)' },
  '.cm-ir-t-number': { color: 'var(--syn-number, #c2410c)' },
  '.cm-ir-t-string': { color: 'var(--syn-string, #15803d)' },
  '.cm-ir-t-comment, .cm-ir-t-lineComment, .cm-ir-t-meta': { color: 'var(--syn-comment, #6b7280)' },
  // The same colours for tokens painted as `CSS.highlights` (see `TokenPainter`), set once on the
  // editor and inherited by every line: a rule matching each line would restyle it per highlight.
  '&::highlight(ir-keyword)': { color: 'var(--syn-keyword, #7c3aed)' },
  '&::highlight(ir-type)': { color: 'var(--syn-type, #0f766e)' },
  '&::highlight(ir-var)': { color: 'var(--syn-var, #1e40af)' },
  '&::highlight(ir-fn)': { color: 'var(--syn-fn, #b45309)' },
  '&::highlight(ir-attr)': { color: 'var(--syn-attr, #9333ea)' },
  '&::highlight(ir-number)': { color: 'var(--syn-number, #c2410c)' },
  '&::highlight(ir-string)': { color: 'var(--syn-string, #15803d)' },
  '&::highlight(ir-comment)': { color: 'var(--syn-comment, #6b7280)' },
});

/**
 * The same colours as a Lezer highlight style, for editors whose language builds a syntax tree
 * (the program editor). The IR dumps do not use it: they mark visible tokens directly.
 */
export const irHighlightStyle = HighlightStyle.define([
  { tag: t.keyword, color: 'var(--syn-keyword, #7c3aed)' },
  { tag: t.typeName, color: 'var(--syn-type, #0f766e)' },
  { tag: [t.definition(t.variableName)], color: 'var(--syn-def, #1d4ed8)', fontWeight: '600' },
  { tag: t.variableName, color: 'var(--syn-var, #1e40af)' },
  { tag: t.function(t.variableName), color: 'var(--syn-fn, #b45309)' },
  { tag: t.propertyName, color: 'var(--syn-attr, #9333ea)' },
  { tag: [t.number, t.bool], color: 'var(--syn-number, #c2410c)' },
  { tag: t.string, color: 'var(--syn-string, #15803d)' },
  { tag: [t.comment, t.lineComment, t.meta], color: 'var(--syn-comment, #6b7280)' },
  { tag: t.labelName, color: 'var(--syn-fn, #b45309)' },
]);

/** Syntax highlighting with `irHighlightStyle`. */
export function irHighlighting(): Extension {
  return syntaxHighlighting(irHighlightStyle);
}
