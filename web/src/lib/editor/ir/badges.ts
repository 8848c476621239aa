import { RangeSetBuilder } from '@codemirror/state';
import { Decoration, ViewPlugin, WidgetType, type DecorationSet, type EditorView, type ViewUpdate } from '@codemirror/view';
import { formatShortBytes } from './short-bytes';
import { irIndexField } from './field';
import { firstFrom } from './lookup';

/** A small label at the end of a line: text only, styled by kind. */
class Badge extends WidgetType {
  constructor(
    readonly kind: 'fusion' | 'spill',
    readonly label: string,
    readonly title: string,
  ) {
    super();
  }
  override eq(o: Badge): boolean {
    return o.kind === this.kind && o.label === this.label;
  }
  toDOM(): HTMLElement {
    const s = document.createElement('span');
    s.className = `cm-ir-badge cm-ir-badge-${this.kind}`;
    s.textContent = this.label;
    s.title = this.title;
    return s;
  }
  override ignoreEvent(): boolean {
    return false;
  }
}

function build(view: EditorView): DecorationSet {
  const l = view.state.field(irIndexField, false);
  if (!l) return Decoration.none;
  const doc = view.state.doc;
  const byLine = new Map<number, Badge[]>();
  const add = (pos: number, badge: Badge) => {
    const line = doc.lineAt(pos).to;
    const list = byLine.get(line);
    if (list) list.push(badge);
    else byLine.set(line, [badge]);
  };
  for (const r of view.visibleRanges) {
    for (let i = firstFrom(l.fusions, r.from); i < l.fusions.length; i++) {
      const f = l.fusions[i]!;
      if (f.from > r.to) break;
      add(f.from, new Badge('fusion', `${f.kind} · ${f.fusedOps} ops · out ${formatShortBytes(f.outputBytes)}`, `fusion ${f.name} calls ${f.calls}`));
    }
    for (let i = firstFrom(l.spills, r.from); i < l.spills.length; i++) {
      const s = l.spills[i]!;
      if (s.from > r.to) break;
      add(s.from, new Badge('spill', `spill ${formatShortBytes(s.bytes)} · ${formatShortBytes(s.traffic)} traffic`, `${s.producer}: ${s.bytes} B written, read by ${s.consumers.join(', ')}`));
    }
  }
  const b = new RangeSetBuilder<Decoration>();
  for (const [pos, list] of [...byLine].sort((x, y) => x[0] - y[0])) {
    for (const badge of list) b.add(pos, pos, Decoration.widget({ widget: badge, side: 1 }));
  }
  return b.finish();
}

/** Fusion and spill badges at the end of their instruction's line, built for the visible lines only. */
export function irBadges() {
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = build(view);
      }
      update(u: ViewUpdate) {
        const indexChanged = u.startState.field(irIndexField, false) !== u.state.field(irIndexField, false);
        if (u.viewportChanged || u.docChanged || indexChanged) this.decorations = build(u.view);
      }
    },
    { decorations: (p) => p.decorations },
  );
}
