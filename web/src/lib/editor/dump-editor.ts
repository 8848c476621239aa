import { EditorState, type Extension } from '@codemirror/state';
import { defaultKeymap } from '@codemirror/commands';
import { openSearchPanel, search, searchKeymap } from '@codemirror/search';
import { EditorView, drawSelection, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import type { DocumentKind } from '@seam/shared/model';
import { annotationField, annotationMarks } from './annotation-marks';
import { fastScroll } from './fast-scroll';
import { irOverlays } from './ir';
import { irLanguage } from './lang';
import { remoteSelections } from './remote-selections';
import { readOnlyLook } from './read-only';
import { spotlight } from './spotlight';
import { seamTheme } from './theme';
import { selectedLineReporter, userScrollDetector, viewReporter, type ViewReport } from './follow';
import { dumpText } from './dump-text';

/** Callbacks the dump editor reports through. */
export interface DumpEditorOptions {
  readonly onView: (r: ViewReport) => void;
  readonly onUserScroll: () => void;
  /** Opens an annotation from its mark; by default marks open nothing (a diff shows none). */
  readonly onOpenAnnotation?: (id: string) => void;
  /** Opens the annotate bubble on the current selection (Alt-A); by default Alt-A is left to others. */
  readonly onAnnotateKey?: () => boolean;
  /** Long lines wrap; default false (they scroll sideways, and fast scrolls are drawn light). */
  readonly wrap?: boolean;
  /** The dump's kind picks the IR language (highlighting and folding); default plain text. */
  readonly kind?: DocumentKind;
  /** Reports the line under the pointer, for cross-layer highlighting. */
  readonly onHoverLine?: (line: number | null) => void;
  /** Reports the line the person puts the cursor or selection head on (split view scrolls the other panes to its counterparts). */
  readonly onSelectLine?: (line: number) => void;
}

/**
 * Every extension of a read-only dump: the text can be navigated, searched (Ctrl+F: the whole text,
 * not only the lines drawn; Ctrl+Alt+G goes to a line) and selected by mouse and keyboard but never
 * changed, and looks it (`readOnlyLook`); marks, remote selections and the spotlight come in as
 * state effects.
 */
export function dumpExtensions(o: DumpEditorOptions): Extension {
  return [
    EditorState.readOnly.of(true),
    readOnlyLook(),
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightActiveLine(),
    drawSelection(),
    irLanguage(o.kind ?? 'text'),
    irOverlays(o.onHoverLine),
    annotationMarks({ onOpen: o.onOpenAnnotation ?? (() => {}) }),
    remoteSelections(),
    spotlight(),
    viewReporter(o.onView),
    userScrollDetector(o.onUserScroll),
    o.onSelectLine ? selectedLineReporter(o.onSelectLine) : [],
    search({ top: true }),
    keymap.of([{ key: 'Alt-a', run: () => o.onAnnotateKey?.() ?? false }, ...searchKeymap, ...defaultKeymap]),
    EditorView.contentAttributes.of({ 'aria-label': 'Document text', 'aria-readonly': 'true' }),
    o.wrap ? EditorView.lineWrapping : fastScroll({ marks: (s) => s.field(annotationField, false)?.marks, glyphs: (s) => s.field(annotationField, false)?.glyphs }),
    seamTheme,
  ];
}

/**
 * Mounts a read-only dump editor showing `text` in `parent`: {@link dumpExtensions} with `o`, then
 * `extra` (a diff's marks, say; none by default). The caller destroys the view.
 */
export function mountDumpView(parent: HTMLElement, text: string, o: DumpEditorOptions, extra: Extension = []): EditorView {
  return new EditorView({ parent, state: EditorState.create({ doc: dumpText(text), extensions: [dumpExtensions(o), extra] }) });
}

/**
 * Opens the find panel of the dump drawn for `docId` (its `.editor-host`), focusing it, as Ctrl+F
 * does inside the editor; for Ctrl+F pressed elsewhere in the room. False when no such editor is drawn.
 */
export function openFindIn(docId: string): boolean {
  const el = document.querySelector(`.editor-host[data-doc-id="${CSS.escape(docId)}"] .cm-editor`);
  const view = el instanceof HTMLElement ? EditorView.findFromDOM(el) : null;
  if (!view) return false;
  view.focus();
  return openSearchPanel(view);
}
