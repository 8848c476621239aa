import type { Extension } from '@codemirror/state';
import { EditorView, ViewPlugin } from '@codemirror/view';

/** A "read-only" label in the editor's bottom right corner, real text that does not catch the pointer. */
const label = ViewPlugin.fromClass(class {
  readonly el: HTMLElement;
  constructor(view: EditorView) {
    this.el = document.createElement('span');
    this.el.className = 'cm-readonly-label';
    this.el.textContent = 'read-only';
    view.dom.appendChild(this.el);
  }
  destroy(): void {
    this.el.remove();
  }
});

/**
 * How a text that this person cannot change shows it: no caret is drawn (the active line and the
 * selection still show where the reader is), a "read-only" label, and `data-readonly` on the editor.
 */
export function readOnlyLook(): Extension {
  return [
    label,
    EditorView.editorAttributes.of({ 'data-readonly': 'true' }),
    EditorView.theme({
      '.cm-cursorLayer': { display: 'none' },
      '.cm-content': { caretColor: 'transparent' },
      '.cm-readonly-label': {
        position: 'absolute', right: '16px', bottom: '8px', zIndex: '5', pointerEvents: 'none', fontSize: '11px', padding: '0 6px',
        border: '1px solid var(--border)', borderRadius: '4px', color: 'var(--fg-muted)',
        background: 'color-mix(in srgb, var(--bg-raised) 88%, transparent)', fontFamily: 'var(--sans)',
      },
    }),
  ];
}
