import { StateEffect, StateField, type Extension, type Range } from '@codemirror/state';
import { Decoration, EditorView, WidgetType, type DecorationSet } from '@codemirror/view';

/** Another person's selection in this document, by offsets. */
export interface RemoteSelection {
  readonly clientId: number;
  readonly name: string;
  readonly color: string;
  readonly anchor: number;
  readonly head: number;
}

/** Replaces the remote selections shown (those of people in this document). */
export const setRemoteSelections = StateEffect.define<readonly RemoteSelection[]>();

class Caret extends WidgetType {
  constructor(
    readonly name: string,
    readonly color: string,
  ) {
    super();
  }
  override eq(other: Caret): boolean {
    return other.name === this.name && other.color === this.color;
  }
  override toDOM(): HTMLElement {
    const el = document.createElement('span');
    el.className = 'cm-remote-caret';
    el.style.borderLeftColor = this.color;
    el.title = this.name;
    const label = el.appendChild(document.createElement('span'));
    label.className = 'cm-remote-caret-name';
    label.style.backgroundColor = this.color;
    label.textContent = this.name;
    return el;
  }
  override ignoreEvent(): boolean {
    return true;
  }
}

/** Decorations for remote selections: a tinted range and a named caret at the head; out-of-range ones are skipped. */
export function remoteDecorations(length: number, list: readonly RemoteSelection[]): DecorationSet {
  const out: Range<Decoration>[] = [];
  for (const s of list) {
    if (s.anchor < 0 || s.head < 0 || s.anchor > length || s.head > length) continue;
    const from = Math.min(s.anchor, s.head);
    const to = Math.max(s.anchor, s.head);
    if (to > from) {
      out.push(
        Decoration.mark({
          class: 'cm-remote-selection',
          attributes: { style: `background-color: ${s.color}40`, title: s.name, 'data-remote-client': String(s.clientId) },
        }).range(from, to),
      );
    }
    out.push(Decoration.widget({ widget: new Caret(s.name, s.color), side: 1 }).range(s.head));
  }
  return Decoration.set(out, true);
}

const remoteField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(value, tr) {
    for (const e of tr.effects) if (e.is(setRemoteSelections)) return remoteDecorations(tr.state.doc.length, e.value);
    return value;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/** Shows other people's selections and carets, fed by `setRemoteSelections` from awareness. */
export function remoteSelections(): Extension {
  return remoteField;
}
