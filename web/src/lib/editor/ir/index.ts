import type { Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { irBadges } from './badges';
import { spillGutter } from './spill-gutter';
import { irIndexField } from './field';
import { irGoToDefinition } from './goto';
import { irHover } from './hover';
import { hoverLineReporter, linkedLines } from './linked';
import { opTimesField } from './op-times';
import { irHighlightUses } from './uses';

export { irBadges } from './badges';
export { spillGutter } from './spill-gutter';
export { rankSpills, type SpillRank } from './spill-rank';
export { irIndexField, setIrIndex } from './field';
export { definitionOf, goToDefinition, irGoToDefinition } from './goto';
export { dotLines, fusionLines, hoverFacts, irHover, spillLines } from './hover';
export { hoverLineReporter, linkedLines, setLinkedLines, type LinkedLines } from './linked';
export { bareName, buildLookup, scopeAt, spanAt, toViewIndex, valueAt, wordAt, type IrLookup, type ViewIndex } from './lookup';
export { ValueTable, valueColumns, type ValueColumns } from './value-table';
export { shapeAt } from './shape-bytes';
export { formatShortBytes } from './short-bytes';
export { irHighlightUses, occurrences } from './uses';
export { opTimeLine, opTimesField, setOpTimes, type OpTimes } from './op-times';

const irTheme = EditorView.theme({
  '.cm-ir-use': { backgroundColor: 'color-mix(in srgb, var(--accent, #2563eb) 22%, transparent)', borderRadius: '2px' },
  '.cm-ir-linked': { backgroundColor: 'color-mix(in srgb, var(--accent, #2563eb) 16%, transparent)', boxShadow: 'inset 3px 0 0 var(--accent, #2563eb)' },
  '.cm-ir-linked-remote': { boxShadow: 'inset 3px 0 0 var(--ann-question, #d97706)' },
  '.cm-ir-badge': { marginLeft: '12px', padding: '0 5px', borderRadius: '8px', fontFamily: 'var(--sans)', fontSize: '11px', whiteSpace: 'nowrap' },
  '.cm-ir-badge-fusion': { color: 'var(--ann-fusion, #7c3aed)', border: '1px solid var(--ann-fusion, #7c3aed)' },
  '.cm-spill-gutter .cm-gutterElement': { display: 'flex', alignItems: 'center', justifyContent: 'flex-end' },
  '.cm-spill-rank': { margin: '0 4px', padding: '0 5px', borderRadius: '6px', fontFamily: 'var(--sans)', fontSize: '11px', lineHeight: '15px', whiteSpace: 'nowrap' },
  '.cm-spill-rank-top': { color: 'var(--fg, #111)', fontWeight: '600', border: '1px solid var(--ann-spill, #dc2626)' },
  '.cm-spill-rank-minor': { color: 'var(--fg-muted, #868e96)', border: '1px dashed var(--border, #ced4da)' },
  '.cm-spill-rank-bar': { display: 'inline-block', width: '4px', height: '13px', margin: '0 1px', padding: '0', borderRadius: '2px', border: 'none' },
  '.cm-spill-rank-bar.cm-spill-rank-minor': { backgroundColor: 'var(--border, #ced4da)' },
  '.cm-ir-hover': { padding: '6px 8px', fontFamily: 'var(--mono)', fontSize: '12px', lineHeight: '1.45', maxWidth: '560px' },
});

/** Every IR overlay: index field, hover, go to definition, uses, fusion badges, ranked spills, counterpart lines; `onHoverLine` reports the pointer's line. */
export function irOverlays(onHoverLine?: (line: number | null) => void): Extension {
  return [irIndexField, opTimesField, irHover(), irGoToDefinition(), irHighlightUses(), irBadges(), spillGutter(), linkedLines(), onHoverLine ? hoverLineReporter(onHoverLine) : [], irTheme];
}
