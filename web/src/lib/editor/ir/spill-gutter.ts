import { RangeSet, RangeSetBuilder, StateField, type EditorState, type Extension } from '@codemirror/state';
import { gutter, GutterMarker, type EditorView } from '@codemirror/view';
import { irIndexField } from './field';
import { formatShortBytes } from './short-bytes';
import { rankSpills } from './spill-rank';

/**
 * A spill's rank and size in the gutter beside its line: `#1 · 256 MiB`, filled by its share of the
 * largest when prominent; in a narrow editor a bar filled the same way, its label in its title.
 */
class SpillMarker extends GutterMarker {
  constructor(
    readonly label: string,
    readonly title: string,
    readonly share: number,
    readonly prominent: boolean,
    readonly bar = false,
  ) {
    super();
  }
  override eq(o: SpillMarker): boolean {
    return o.label === this.label && o.title === this.title && o.prominent === this.prominent && o.bar === this.bar;
  }
  override toDOM(): Node {
    // The spacer of a dump without spills: the gutter takes no width.
    if (!this.label) return document.createTextNode('');
    const s = document.createElement('span');
    s.className = `cm-spill-rank ${this.prominent ? 'cm-spill-rank-top' : 'cm-spill-rank-minor'}${this.bar ? ' cm-spill-rank-bar' : ''}`;
    if (this.bar) s.setAttribute('aria-label', this.label);
    else s.textContent = this.label;
    s.title = this.bar ? `${this.label} · ${this.title}` : this.title;
    // Intensity by size: the largest spill is filled most.
    if (this.prominent) s.style.backgroundColor = `color-mix(in srgb, var(--ann-spill, #dc2626) ${Math.round(12 + 48 * this.share)}%, transparent)`;
    return s;
  }
}

/** One way of labelling the spills: the markers, and the widest label, so that the gutter keeps one width while scrolling (an empty one without spills). */
interface Labelled {
  readonly set: RangeSet<SpillMarker>;
  readonly widest: SpillMarker;
}

/** The spills labelled in full (`#1 · 256 MiB`), and as bars (the label in their title) for narrow editors. */
interface SpillMarkers {
  readonly full: Labelled;
  readonly compact: Labelled;
}

/**
 * Editors narrower than this (a split-view pane at 1,440 px is about 310) draw each spill as a bar
 * filled by its share of the largest, its rank and size in its title, so that the gutters leave the
 * text four fifths of the pane.
 */
export const NARROW_EDITOR_PX = 560;

const NO_SPILL = new SpillMarker('', '', 0, false);

function build(state: EditorState): SpillMarkers {
  const spills = state.field(irIndexField, false)?.spills ?? [];
  const ranks = rankSpills(spills);
  const doc = state.doc;
  const placed: { pos: number; marker: SpillMarker; short: SpillMarker }[] = [];
  spills.forEach((s, i) => {
    const r = ranks[i]!;
    if (s.from > doc.length) return;
    const pct = r.share >= 0.01 ? `${Math.round(r.share * 100)}%` : 'under 1%';
    const title = `Spill #${r.rank} of ${spills.length}: ${s.producer}, ${s.bytes.toLocaleString('en-US')} B (${pct} of the largest), ${formatShortBytes(s.traffic)} traffic, read by ${s.consumers.join(', ')}`;
    const pos = doc.lineAt(s.from).from;
    placed.push({ pos, marker: new SpillMarker(`#${r.rank} · ${formatShortBytes(s.bytes)}`, title, r.share, r.prominent), short: new SpillMarker(`#${r.rank} · ${formatShortBytes(s.bytes)}`, title, r.share, r.prominent, true) });
  });
  placed.sort((a, b) => a.pos - b.pos);
  const label = (pick: (p: (typeof placed)[number]) => SpillMarker): Labelled => {
    const b = new RangeSetBuilder<SpillMarker>();
    for (const p of placed) b.add(p.pos, p.pos, pick(p));
    return { set: b.finish(), widest: placed.map(pick).reduce((w, m) => (m.label.length > w.label.length ? m : w), NO_SPILL) };
  };
  return { full: label((p) => p.marker), compact: label((p) => p.short) };
}

/** The labels that fit `view`: bars in a narrow editor. */
function labelled(view: EditorView): Labelled {
  const m = view.state.field(spillMarkersField);
  return view.scrollDOM.clientWidth < NARROW_EDITOR_PX ? m.compact : m.full;
}

const spillMarkersField = StateField.define<SpillMarkers>({
  create: build,
  update: (v, tr) => (tr.state.field(irIndexField, false) !== tr.startState.field(irIndexField, false) ? build(tr.state) : v),
});

/**
 * Each spill's rank and size (`#1 · 256 MiB`) in a gutter beside its line, where a long unwrapped
 * line cannot push it out of view: the few that matter (see `rankSpills`) filled by their share of
 * the largest, the rest subdued; by rank alone in an editor narrower than {@link NARROW_EDITOR_PX}.
 * Built once per index; the gutter is empty without spills.
 */
export function spillGutter(): Extension {
  return [
    spillMarkersField,
    gutter({
      class: 'cm-spill-gutter',
      markers: (view) => labelled(view).set,
      initialSpacer: (view) => labelled(view).widest,
      updateSpacer: (_spacer, u) => labelled(u.view).widest,
    }),
  ];
}
