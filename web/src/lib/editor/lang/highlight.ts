import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags as t } from '@lezer/highlight';

/** Colours of IR tokens, from CSS variables (`--syn-*`, falling back to fixed colours) so both themes read well. */
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

/** Syntax highlighting of the IR languages. */
export function irHighlighting() {
  return syntaxHighlighting(irHighlightStyle);
}
