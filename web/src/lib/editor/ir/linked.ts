import { RangeSetBuilder, StateEffect, StateField, type Extension } from '@codemirror/state';
import { Decoration, EditorView, ViewPlugin, type DecorationSet } from '@codemirror/view';

/** Lines (1-based) of this document that are counterparts of what is hovered elsewhere, and who hovers. */
export interface LinkedLines {
  readonly lines: readonly number[];
  /** Scroll the first line into view (for a selection, not for a passing hover). */
  readonly reveal?: boolean;
  /** `remote` when the lines come from another person (the presenter), styled apart. */
  readonly source?: 'local' | 'remote';
}

/** Replaces the highlighted counterpart lines. */
export const setLinkedLines = StateEffect.define<LinkedLines>();

const local = Decoration.line({ class: 'cm-ir-linked', attributes: { 'data-linked': 'true' } });
const remote = Decoration.line({ class: 'cm-ir-linked cm-ir-linked-remote', attributes: { 'data-linked': 'remote' } });

const linkedField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(value, tr) {
    for (const e of tr.effects) {
      if (!e.is(setLinkedLines)) continue;
      const doc = tr.state.doc;
      const deco = e.value.source === 'remote' ? remote : local;
      const b = new RangeSetBuilder<Decoration>();
      for (const n of [...new Set(e.value.lines)].filter((n) => n >= 1 && n <= doc.lines).sort((a, b) => a - b)) {
        const pos = doc.line(n).from;
        b.add(pos, pos, deco);
      }
      value = b.finish();
    }
    return value.map(tr.changes);
  },
  provide: (f) => EditorView.decorations.from(f),
});

/** Reveals the first linked line when asked to. */
const revealLinked = EditorView.updateListener.of((u) => {
  for (const tr of u.transactions) {
    for (const e of tr.effects) {
      const first = e.is(setLinkedLines) && e.value.reveal ? Math.min(...e.value.lines) : NaN;
      if (Number.isFinite(first) && first <= u.state.doc.lines) {
        const pos = u.state.doc.line(first).from;
        queueMicrotask(() => u.view.dispatch({ effects: EditorView.scrollIntoView(pos, { y: 'nearest', yMargin: 40 }) }));
      }
    }
  }
});

/**
 * Reports the line under the pointer (1-based) as it changes, `null` when the pointer leaves; at most
 * once per animation frame.
 */
export function hoverLineReporter(report: (line: number | null) => void): Extension {
  return ViewPlugin.define((view) => {
    let last: number | null = null;
    let frame = 0;
    let pending: { x: number; y: number } | null = null;
    const flush = () => {
      frame = 0;
      let line: number | null = null;
      if (pending) {
        const pos = view.posAtCoords(pending, false);
        line = view.state.doc.lineAt(pos).number;
      }
      if (line !== last) {
        last = line;
        report(line);
      }
    };
    const move = (e: MouseEvent) => {
      pending = { x: e.clientX, y: e.clientY };
      if (!frame) frame = requestAnimationFrame(flush);
    };
    const leave = () => {
      pending = null;
      if (!frame) frame = requestAnimationFrame(flush);
    };
    view.contentDOM.addEventListener('mousemove', move);
    view.contentDOM.addEventListener('mouseleave', leave);
    return {
      destroy() {
        if (frame) cancelAnimationFrame(frame);
        view.contentDOM.removeEventListener('mousemove', move);
        view.contentDOM.removeEventListener('mouseleave', leave);
      },
    };
  });
}

/** Line highlights for counterparts in other panes (see `setLinkedLines`). */
export function linkedLines(): Extension {
  return [linkedField, revealLinked];
}
