import { RangeSetBuilder, type EditorState, type Extension } from '@codemirror/state';
import { Decoration, EditorView, WidgetType, type DecorationSet } from '@codemirror/view';
import { formatShortBytes } from './short-bytes';
import { irIndexField } from './field';

/** A small label at the end of a line: text only, styled by kind. */
class Badge extends WidgetType {
  constructor(
    readonly kind: 'fusion',
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

function build(state: EditorState): DecorationSet {
  const l = state.field(irIndexField, false);
  if (!l) return Decoration.none;
  const doc = state.doc;
  const byLine = new Map<number, Badge[]>();
  const add = (pos: number, badge: Badge) => {
    if (pos > doc.length) return;
    const line = doc.lineAt(pos).to;
    const list = byLine.get(line);
    if (list) list.push(badge);
    else byLine.set(line, [badge]);
  };
  for (const f of l.fusions) add(f.from, new Badge('fusion', `${f.kind} · ${f.fusedOps} ops · out ${formatShortBytes(f.outputBytes)}`, `fusion ${f.name} calls ${f.calls}`));
  const b = new RangeSetBuilder<Decoration>();
  for (const [pos, list] of [...byLine].sort((x, y) => x[0] - y[0])) {
    for (const badge of list) b.add(pos, pos, Decoration.widget({ widget: badge, side: 1 }));
  }
  return b.finish();
}

/**
 * Fusion badges at the end of their instruction's line (spills are ranked in their own gutter, see
 * `spillGutter`). The set is built once per index
 * (a few thousand widgets on a 25 MB dump) and the editor draws only those in view, so scrolling
 * never rebuilds it.
 */
export function irBadges(): Extension {
  return EditorView.decorations.compute([irIndexField], build);
}
