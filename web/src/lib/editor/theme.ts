import { EditorView } from '@codemirror/view';

/**
 * The editor's look, in CSS variables set by the app (`--ann-fusion` etc.), so light and dark
 * themes share one definition.
 */
export const seamTheme = EditorView.theme({
  '&': { height: '100%', fontSize: '13px', backgroundColor: 'var(--bg)', color: 'var(--fg)' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.45' },
  '.cm-gutters': { backgroundColor: 'var(--bg-soft)', color: 'var(--fg-muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine': { backgroundColor: 'var(--active-line)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--active-line)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground': { backgroundColor: 'var(--selection) !important' },
  '.cm-cursor': { borderLeftColor: 'var(--fg)' },
  '.cm-ann': { borderBottom: '2px solid var(--ann-color)', backgroundColor: 'color-mix(in srgb, var(--ann-color) 18%, transparent)', cursor: 'pointer' },
  '.cm-ann-fusion': { '--ann-color': 'var(--ann-fusion)' },
  '.cm-ann-spill': { '--ann-color': 'var(--ann-spill)' },
  '.cm-ann-note': { '--ann-color': 'var(--ann-note)' },
  '.cm-ann-question': { '--ann-color': 'var(--ann-question)' },
  '.cm-ann.cm-ann-resolved': { opacity: '0.45' },
  '.cm-lineNumbers .cm-gutterElement': { position: 'relative', paddingLeft: '14px' },
  '.cm-ann-glyph::before': { content: '"■"', position: 'absolute', left: '3px', fontSize: '9px', color: 'var(--ann-color)' },
  '.cm-ann-glyph.cm-ann-resolved::before': { opacity: '0.45' },
  '.cm-tooltip': { backgroundColor: 'var(--bg-raised)', color: 'var(--fg)', border: '1px solid var(--border)' },
  '.cm-ann-tooltip': { maxWidth: '360px', padding: '6px 8px', fontFamily: 'var(--sans)', fontSize: '12px', lineHeight: '1.4' },
  '.cm-ann-tooltip-head': { fontWeight: '600', color: 'var(--ann-color)' },
  '.cm-ann-tooltip-reply': { color: 'var(--fg-muted)', marginLeft: '8px' },
  '.cm-remote-caret': { position: 'relative', borderLeft: '2px solid', marginLeft: '-1px', marginRight: '-1px' },
  '.cm-remote-caret-name': {
    position: 'absolute', top: '-1.3em', left: '-2px', fontSize: '10px', fontFamily: 'var(--sans)', color: '#fff',
    padding: '0 3px', borderRadius: '3px', whiteSpace: 'nowrap', opacity: '0', transition: 'opacity .15s', pointerEvents: 'none',
  },
  '.cm-remote-caret:hover .cm-remote-caret-name': { opacity: '1' },
  '.cm-panels': { backgroundColor: 'var(--bg-soft)', color: 'var(--fg)' },
  '.cm-panels.cm-panels-top': { borderBottom: '1px solid var(--border)' },
  '.cm-panels.cm-panels-bottom': { borderTop: '1px solid var(--border)' },
  '.cm-panel.cm-search, .cm-panel.cm-goto-line': { fontFamily: 'var(--sans)', fontSize: '12px' },
  '.cm-textfield': { backgroundColor: 'var(--bg)', color: 'var(--fg)', border: '1px solid var(--border)' },
  '.cm-button': { backgroundImage: 'none', backgroundColor: 'var(--bg)', color: 'var(--fg)', border: '1px solid var(--border)' },
  '.cm-searchMatch': { backgroundColor: 'color-mix(in srgb, var(--spotlight) 55%, transparent)', outline: '1px solid var(--border)' },
  '.cm-searchMatch.cm-searchMatch-selected': { backgroundColor: 'var(--spotlight)' },
  '.cm-spotlight': { animation: 'seam-pulse 1.2s ease-in-out 3', backgroundColor: 'var(--spotlight)', borderRadius: '2px' },
});
