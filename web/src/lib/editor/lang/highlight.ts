import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import type { Extension } from '@codemirror/state';
import { tags as t } from '@lezer/highlight';
import { EditorView } from '@codemirror/view';

/** The colour of each token group: `--syn-*` CSS variables, one light and one dark value each (`styles.css`). */
const COLOUR = {
  keyword: 'var(--syn-keyword)',
  type: 'var(--syn-type)',
  var: 'var(--syn-var)',
  def: 'var(--syn-def)',
  fn: 'var(--syn-fn)',
  attr: 'var(--syn-attr)',
  number: 'var(--syn-number)',
  string: 'var(--syn-string)',
  comment: 'var(--syn-comment)',
} as const;

/** The groups painted as `CSS.highlights` (see `TokenPainter`); definitions stay marks, for their weight. */
const PAINTED = ['keyword', 'type', 'var', 'fn', 'attr', 'number', 'string', 'comment'] as const;

/**
 * Colours of IR tokens by style name (`cm-ir-t-keyword` …), and the same colours for tokens painted
 * as `CSS.highlights`, set once on the editor and inherited by every line: a rule matching each
 * line would restyle it per highlight.
 */
export const irHighlightTheme = EditorView.theme({
  '.cm-ir-t-keyword': { color: COLOUR.keyword },
  '.cm-ir-t-typeName': { color: COLOUR.type },
  '.cm-ir-t-variableName': { color: COLOUR.var },
  '.cm-ir-t-definition': { color: COLOUR.def, fontWeight: '600' },
  '.cm-ir-t-function, .cm-ir-t-labelName': { color: COLOUR.fn },
  '.cm-ir-t-propertyName': { color: COLOUR.attr },
  '.cm-ir-t-number': { color: COLOUR.number },
  '.cm-ir-t-string': { color: COLOUR.string },
  '.cm-ir-t-comment, .cm-ir-t-lineComment, .cm-ir-t-meta': { color: COLOUR.comment },
  ...Object.fromEntries(PAINTED.map((g) => [`&::highlight(ir-${g})`, { color: COLOUR[g] }])),
});

/**
 * The same colours as a Lezer highlight style, for editors whose language builds a syntax tree
 * (the program editor). The IR dumps do not use it: they mark visible tokens directly.
 */
export const irHighlightStyle = HighlightStyle.define([
  { tag: t.keyword, color: COLOUR.keyword },
  { tag: t.typeName, color: COLOUR.type },
  { tag: [t.definition(t.variableName)], color: COLOUR.def, fontWeight: '600' },
  { tag: t.variableName, color: COLOUR.var },
  { tag: t.function(t.variableName), color: COLOUR.fn },
  { tag: t.propertyName, color: COLOUR.attr },
  { tag: [t.number, t.bool], color: COLOUR.number },
  { tag: t.string, color: COLOUR.string },
  { tag: [t.comment, t.lineComment, t.meta], color: COLOUR.comment },
  { tag: t.labelName, color: COLOUR.fn },
]);

/** Syntax highlighting with `irHighlightStyle`. */
export function irHighlighting(): Extension {
  return syntaxHighlighting(irHighlightStyle);
}
