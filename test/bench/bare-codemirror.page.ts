import { EditorState } from '@codemirror/state';
import { EditorView, lineNumbers } from '@codemirror/view';

/**
 * The page side of the bare CodeMirror floor (bundled by `bare-codemirror.ts`): an editor showing
 * `text` read-only with line numbers and nothing else (no highlighting, decorations, collaboration
 * or app around it), filling the window. Answers the number of lines.
 */
function openBare(text: string): number {
  const host = document.body.appendChild(document.createElement('div'));
  host.style.cssText = 'position:absolute;inset:0';
  const theme = EditorView.theme({ '&': { height: '100%' }, '.cm-scroller': { fontFamily: 'monospace', fontSize: '13px' } });
  const view = new EditorView({ state: EditorState.create({ doc: text, extensions: [EditorState.readOnly.of(true), lineNumbers(), theme] }), parent: host });
  return view.state.doc.lines;
}

(window as unknown as { __bareCodeMirror: typeof openBare }).__bareCodeMirror = openBare;
