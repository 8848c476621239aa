import { RangeSet, RangeSetBuilder, StateField, type EditorState, type Extension } from '@codemirror/state';
import { gutter, GutterMarker } from '@codemirror/view';
import { irIndexField } from './field';
import { formatShortBytes } from './short-bytes';
import { rankSpills } from './spill-rank';

/** A spill's rank and size in the gutter beside its line: `#1 · 256 MiB`, filled by its share of the largest when prominent. */
class SpillMarker extends GutterMarker {
  constructor(
    readonly label: string,
    readonly title: string,
    readonly share: number,
    readonly prominent: boolean,
  ) {
    super();
  }
  override eq(o: SpillMarker): boolean {
    return o.label === this.label && o.title === this.title && o.prominent === this.prominent;
  }
  override toDOM(): Node {
    // The spacer of a dump without spills: the gutter takes no width.
    if (!this.label) return document.createTextNode('');
    const s = document.createElement('span');
    s.className = `cm-spill-rank ${this.prominent ? 'cm-spill-rank-top' : 'cm-spill-rank-minor'}`;
    s.textContent = this.label;
    s.title = this.title;
    // Intensity by size: the largest spill is filled most.
    if (this.prominent) s.style.backgroundColor = `color-mix(in srgb, var(--ann-spill, #dc2626) ${Math.round(12 + 48 * this.share)}%, transparent)`;
    return s;
  }
}

interface SpillMarkers {
  readonly set: RangeSet<SpillMarker>;
  /** The widest label, so that the gutter keeps one width while scrolling (an empty one without spills). */
  readonly widest: SpillMarker;
}

const NO_SPILL = new SpillMarker('', '', 0, false);

function build(state: EditorState): SpillMarkers {
  const spills = state.field(irIndexField, false)?.spills ?? [];
  const ranks = rankSpills(spills);
  const doc = state.doc;
  const placed: { pos: number; marker: SpillMarker }[] = [];
  spills.forEach((s, i) => {
    const r = ranks[i]!;
    if (s.from > doc.length) return;
    const pct = r.share >= 0.01 ? `${Math.round(r.share * 100)}%` : 'under 1%';
    const title = `Spill #${r.rank} of ${spills.length}: ${s.producer}, ${s.bytes.toLocaleString('en-US')} B (${pct} of the largest), ${formatShortBytes(s.traffic)} traffic, read by ${s.consumers.join(', ')}`;
    placed.push({ pos: doc.lineAt(s.from).from, marker: new SpillMarker(`#${r.rank} · ${formatShortBytes(s.bytes)}`, title, r.share, r.prominent) });
  });
  placed.sort((a, b) => a.pos - b.pos);
  const b = new RangeSetBuilder<SpillMarker>();
  for (const p of placed) b.add(p.pos, p.pos, p.marker);
  const widest = placed.reduce((w, p) => (p.marker.label.length > w.label.length ? p.marker : w), NO_SPILL);
  return { set: b.finish(), widest };
}

const spillMarkersField = StateField.define<SpillMarkers>({
  create: build,
  update: (v, tr) => (tr.state.field(irIndexField, false) !== tr.startState.field(irIndexField, false) ? build(tr.state) : v),
});

/**
 * Each spill's rank and size (`#1 · 256 MiB`) in a gutter beside its line, where a long unwrapped
 * line cannot push it out of view: the few that matter (see `rankSpills`) filled by their share of
 * the largest, the rest subdued. Built once per index; the gutter is empty without spills.
 */
export function spillGutter(): Extension {
  return [
    spillMarkersField,
    gutter({
      class: 'cm-spill-gutter',
      markers: (view) => view.state.field(spillMarkersField).set,
      initialSpacer: (view) => view.state.field(spillMarkersField).widest,
      updateSpacer: (_spacer, u) => u.state.field(spillMarkersField).widest,
    }),
  ];
}
