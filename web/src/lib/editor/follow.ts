import type { Extension } from '@codemirror/state';
import { EditorSelection } from '@codemirror/state';
import { EditorView, ViewPlugin, type ViewUpdate } from '@codemirror/view';

/** The 1-based line at the top of the visible area. */
export function topLine(view: EditorView): number {
  const block = view.lineBlockAtHeight(view.scrollDOM.getBoundingClientRect().top - view.documentTop + 1);
  return view.state.doc.lineAt(Math.min(block.from, view.state.doc.length)).number;
}

/** Scrolls so that 1-based `line` is at the top, clamped to the document, and optionally selects. */
export function showLine(view: EditorView, line: number, selection?: { anchor: number; head: number }): void {
  const doc = view.state.doc;
  const n = Math.max(1, Math.min(doc.lines, Math.floor(line)));
  const sel =
    selection && selection.anchor <= doc.length && selection.head <= doc.length
      ? EditorSelection.single(selection.anchor, selection.head)
      : undefined;
  view.dispatch({ effects: EditorView.scrollIntoView(doc.line(n).from, { y: 'start', yMargin: 0 }), ...(sel ? { selection: sel } : {}) });
}

/** What the view reports: its selection, and its top line when asked (reading it forces a layout, which only a presenter needs). */
export interface ViewReport {
  readonly topLine: () => number;
  readonly anchor: number;
  readonly head: number;
}

/**
 * Reports the top line and selection whenever the user scrolls or selects (at most once per frame),
 * so a presenter can drive followers by line rather than pixels. Scrolls are watched by a capturing
 * listener on the editor's root, so that a fast scroll drawn by the fast-scroll layer (which holds
 * CodeMirror's own scroll handling back) is reported as it goes.
 */
export function viewReporter(report: (r: ViewReport) => void): Extension {
  return ViewPlugin.fromClass(
    class {
      private frame = 0;
      private readonly onScroll = (e: Event) => {
        if (e.target === this.view.scrollDOM) this.schedule();
      };
      constructor(private readonly view: EditorView) {
        view.dom.addEventListener('scroll', this.onScroll, { capture: true });
        this.schedule();
      }
      update(u: ViewUpdate) {
        if (u.selectionSet || u.viewportChanged || u.geometryChanged) this.schedule();
      }
      schedule() {
        if (this.frame) return;
        this.frame = requestAnimationFrame(() => {
          this.frame = 0;
          const { anchor, head } = this.view.state.selection.main;
          const view = this.view;
          report({ topLine: () => topLine(view), anchor, head });
        });
      }
      destroy() {
        if (this.frame) cancelAnimationFrame(this.frame);
        this.view.dom.removeEventListener('scroll', this.onScroll, { capture: true });
      }
    },
  );
}

const NAV_KEYS = new Set(['PageUp', 'PageDown', 'ArrowUp', 'ArrowDown', 'Home', 'End', ' ']);
/** The pointer's own scrolls. */
const MOVES = ['wheel', 'touchmove'];

/**
 * Calls `onUserScroll` when the person scrolls by wheel, touch or navigation keys, finds a match
 * or goes to a line (not when the program scrolls). Wheel and touch are watched on the editor's
 * root, not its content: while the fast-scroll layer draws, CodeMirror's lines are hidden, so
 * the pointer is over none of them. Passive listeners, so the browser scrolls on a wheel or touch
 * without waiting for the page's main thread.
 */
export function userScrollDetector(onUserScroll: () => void): Extension {
  const moves = ViewPlugin.define((view) => {
    const moved = () => onUserScroll();
    for (const t of MOVES) view.dom.addEventListener(t, moved, { passive: true });
    return { destroy: () => MOVES.forEach((t) => view.dom.removeEventListener(t, moved)) };
  });
  const keys = EditorView.domEventObservers({
    keydown(e) {
      if (NAV_KEYS.has(e.key)) onUserScroll();
    },
  });
  // The find panel selects its match with this user event; the go-to-line dialog is sent with Enter or its button.
  const found = EditorView.updateListener.of((u) => {
    if (u.transactions.some((tr) => tr.isUserEvent('select.search'))) onUserScroll();
  });
  const went = ViewPlugin.define((view) => {
    const sent = (e: Event) => {
      const inDialog = e.target instanceof Element && e.target.closest('.cm-goto-line');
      if (inDialog && (e.type === 'submit' || (e as KeyboardEvent).key === 'Enter')) onUserScroll();
    };
    const types = ['submit', 'keydown'];
    for (const t of types) view.dom.addEventListener(t, sent);
    return { destroy: () => types.forEach((t) => view.dom.removeEventListener(t, sent)) };
  });
  return [moves, keys, found, went];
}

/** Whether a line spanning `[top, bottom]` lies wholly within the visible span `[viewTop, viewBottom]` (any one vertical axis). */
export function lineInView(top: number, bottom: number, viewTop: number, viewBottom: number): boolean {
  return top >= viewTop && bottom <= viewBottom;
}

/**
 * Brings 1-based `line` into view for a counterpart elsewhere: not moved when the line is already
 * wholly visible, centred when it is not (clamped to the document).
 */
export function revealLine(view: EditorView, line: number): void {
  const doc = view.state.doc;
  const pos = doc.line(Math.max(1, Math.min(doc.lines, Math.floor(line)))).from;
  const block = view.lineBlockAt(pos);
  const box = view.scrollDOM.getBoundingClientRect();
  const top = view.documentTop + block.top;
  if (lineInView(top, top + block.height, box.top, box.bottom)) return;
  view.dispatch({ effects: EditorView.scrollIntoView(pos, { y: 'center' }) });
}

/** Calls `report` with the 1-based line of the main selection's head when the person moves it (click, keys), not when the program does. */
export function selectedLineReporter(report: (line: number) => void): Extension {
  return EditorView.updateListener.of((u) => {
    if (u.selectionSet && u.transactions.some((tr) => tr.isUserEvent('select'))) report(u.state.doc.lineAt(u.state.selection.main.head).number);
  });
}
