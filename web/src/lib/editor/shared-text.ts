import type * as Y from 'yjs';
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, drawSelection, lineNumbers } from '@codemirror/view';
import { yCollab } from 'y-codemirror.next';
import type { Awareness } from 'y-protocols/awareness';
import { seamTheme } from './theme';

/** A co-edited room text, who else is in it, whether this person may edit it, and its accessible name. */
export interface SharedTextOptions {
  readonly text: Y.Text;
  readonly awareness: Awareness;
  readonly editable: boolean;
  readonly label: string;
}

/**
 * What every co-edited room text has (the notes, a capture's program): line numbers, the selection,
 * Yjs binding with remote cursors, read-only unless `editable`, an accessible name, the theme.
 * Callers add their own keymap and language.
 */
export function sharedTextExtensions(o: SharedTextOptions): Extension {
  return [
    lineNumbers(),
    drawSelection(),
    yCollab(o.text, o.awareness),
    EditorState.readOnly.of(!o.editable),
    EditorView.contentAttributes.of({ 'aria-label': o.label }),
    seamTheme,
  ];
}

/** A CodeMirror view of a co-edited room text in `parent`: {@link sharedTextExtensions} plus the caller's `extra`. */
export function mountSharedText(parent: HTMLElement, o: SharedTextOptions, extra: Extension[]): EditorView {
  return new EditorView({
    parent,
    state: EditorState.create({ doc: o.text.toString(), extensions: [sharedTextExtensions(o), ...extra] }),
  });
}
