import type * as Y from 'yjs';
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, drawSelection, lineNumbers } from '@codemirror/view';
import { yCollab } from 'y-codemirror.next';
import type { Awareness } from 'y-protocols/awareness';
import { seamTheme } from './theme';

/**
 * What every co-edited room text has (the notes, a capture's program): line numbers, the selection,
 * Yjs binding with remote cursors, read-only unless `editable`, an accessible name, the theme.
 * Callers add their own keymap and language.
 */
export function sharedTextExtensions(o: { text: Y.Text; awareness: Awareness; editable: boolean; label: string }): Extension {
  return [
    lineNumbers(),
    drawSelection(),
    yCollab(o.text, o.awareness),
    EditorState.readOnly.of(!o.editable),
    EditorView.contentAttributes.of({ 'aria-label': o.label }),
    seamTheme,
  ];
}
