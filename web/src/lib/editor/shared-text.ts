import type * as Y from 'yjs';
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, drawSelection, keymap, lineNumbers, placeholder } from '@codemirror/view';
import { yCollab, yUndoManagerKeymap } from 'y-codemirror.next';
import type { Awareness } from 'y-protocols/awareness';
import { readOnlyLook } from './read-only';
import { seamTheme } from './theme';

/** A co-edited room text, who else is in it, whether this person may edit it, and its accessible name. */
export interface SharedTextOptions {
  readonly text: Y.Text;
  readonly awareness: Awareness;
  readonly editable: boolean;
  readonly label: string;
  /** Shown while the text is empty. */
  readonly placeholder?: string;
}

/**
 * What every co-edited room text has (the notes, a capture's program): line numbers, the selection,
 * Yjs binding with remote cursors, undo and redo of this person's own edits only (Ctrl+Z, Ctrl+Y),
 * read-only unless `editable` (and then looking it, `readOnlyLook`), an accessible name, the theme, and a placeholder.
 * Callers add their own keymap and language.
 */
export function sharedTextExtensions(o: SharedTextOptions): Extension {
  return [
    lineNumbers(),
    drawSelection(),
    yCollab(o.text, o.awareness),
    keymap.of(yUndoManagerKeymap),
    EditorState.readOnly.of(!o.editable),
    o.editable ? [] : readOnlyLook(),
    EditorView.contentAttributes.of({ 'aria-label': o.label }),
    seamTheme,
    o.placeholder ? placeholder(o.placeholder) : [],
  ];
}

/** A CodeMirror view of a co-edited room text in `parent`: {@link sharedTextExtensions} plus the caller's `extra`. */
export function mountSharedText(parent: HTMLElement, o: SharedTextOptions, extra: Extension[]): EditorView {
  return new EditorView({
    parent,
    state: EditorState.create({ doc: o.text.toString(), extensions: [sharedTextExtensions(o), ...extra] }),
  });
}
