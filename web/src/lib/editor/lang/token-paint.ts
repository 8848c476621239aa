import type { EditorView } from '@codemirror/view';

/**
 * Colours tokens with the CSS Custom Highlight API instead of one `<span>` per token: the drawn
 * lines keep their plain text nodes, and each coloured token is a `StaticRange` in a `Highlight`
 * registered in `CSS.highlights` as `ir-<group>` (styled by `::highlight(ir-<group>)` rules in the
 * theme). A new viewport of a 20 MB dump then costs the browser what plain text costs, instead of
 * creating, styling and laying out ten or more elements per line.
 */

/** Colour groups by token style name; a style's last listed name picks the group (`variableName.function` → `fn`). */
const GROUPS: Readonly<Record<string, string>> = {
  keyword: 'keyword',
  typeName: 'type',
  variableName: 'var',
  function: 'fn',
  labelName: 'fn',
  propertyName: 'attr',
  number: 'number',
  string: 'string',
  comment: 'comment',
  lineComment: 'comment',
  meta: 'comment',
};

/** The highlight group of a token style, or null when the style is not painted (uncoloured, or drawn as a mark). */
export function paintGroup(style: string): string | null {
  let group: string | null = null;
  for (const name of style.split(/[\s.]+/)) {
    if (name === 'definition') return null;
    group = GROUPS[name] ?? group;
  }
  return group;
}

/** True when this browser paints `CSS.highlights`; elsewhere (older browsers, tests without a DOM) tokens stay marks. */
export function canPaintTokens(): boolean {
  return typeof CSS !== 'undefined' && 'highlights' in CSS && typeof Highlight !== 'undefined' && typeof StaticRange !== 'undefined';
}

/** Coloured tokens of a line, `[from, to, style, …]` relative to the line start (see `TokenCache`). */
export type LineTokens = ReadonlyArray<number | string>;

/** What was painted for one drawn line element, valid while its text nodes are the same. */
interface LinePaint {
  readonly from: number;
  readonly nodes: readonly Text[];
  readonly lengths: readonly number[];
  readonly ranges: ReadonlyArray<readonly [string, StaticRange]>;
}

/** The text nodes of a drawn line in document order, skipping widgets (badges, carets), whose text is not the document's. */
function textNodes(el: Node, out: Text[]): Text[] {
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === Node.TEXT_NODE) out.push(c as Text);
    else if (c instanceof HTMLElement && c.contentEditable !== 'false') textNodes(c, out);
  }
  return out;
}

/** Static ranges over `nodes` for the painted tokens of a line. */
function rangesOf(nodes: readonly Text[], tokens: LineTokens): Array<readonly [string, StaticRange]> {
  const out: Array<readonly [string, StaticRange]> = [];
  let n = 0;
  let base = 0;
  // Advances to the node holding offset `at` (a token end may sit at a node's end).
  const seek = (at: number, end: boolean) => {
    while (n < nodes.length - 1 && (end ? at > base + (nodes[n]?.length ?? 0) : at >= base + (nodes[n]?.length ?? 0))) base += nodes[n++]?.length ?? 0;
  };
  for (let i = 0; i < tokens.length; i += 3) {
    const group = paintGroup(tokens[i + 2] as string);
    if (!group) continue;
    const from = tokens[i] as number;
    const to = tokens[i + 1] as number;
    seek(from, false);
    const startContainer = nodes[n];
    const startOffset = from - base;
    seek(to, true);
    const endContainer = nodes[n];
    if (!startContainer || !endContainer || to - base > endContainer.length) break;
    out.push([`ir-${group}`, new StaticRange({ startContainer, startOffset, endContainer, endOffset: to - base })]);
  }
  return out;
}

/**
 * Paints the coloured tokens of an editor's drawn lines into the page's `CSS.highlights`, keeping
 * the ranges of lines whose DOM did not change; `paint` after every redraw, `clear` on destroy.
 */
export class TokenPainter {
  private readonly lines = new WeakMap<Element, LinePaint>();
  private shown = new Set<StaticRange>();
  private readonly groupOf = new Map<StaticRange, string>();

  /** Repaints the lines drawn in `view`, with `tokensOf(lineStart, text)` giving each line's tokens. */
  paint(view: EditorView, tokensOf: (from: number, text: string) => LineTokens): void {
    const next = new Set<StaticRange>();
    for (let el = view.contentDOM.firstElementChild; el; el = el.nextElementSibling) {
      if (!el.classList.contains('cm-line')) continue;
      const from = view.posAtDOM(el, 0);
      let p = this.lines.get(el);
      if (!p || p.from !== from || !p.nodes.every((t, i) => t.parentNode && t.length === p?.lengths[i] && el.contains(t))) {
        const line = view.state.doc.lineAt(from);
        const nodes = textNodes(el, []);
        p = { from, nodes, lengths: nodes.map((t) => t.length), ranges: rangesOf(nodes, tokensOf(line.from, line.text)) };
        this.lines.set(el, p);
      }
      for (const [group, r] of p.ranges) {
        next.add(r);
        this.groupOf.set(r, group);
      }
    }
    for (const r of this.shown) if (!next.has(r)) this.remove(r);
    for (const r of next) if (!this.shown.has(r)) highlightOf(this.groupOf.get(r) ?? '').add(r);
    this.shown = next;
  }

  /** Takes every range of this editor out of the page's highlights. */
  clear(): void {
    for (const r of this.shown) this.remove(r);
    this.shown = new Set();
  }

  private remove(r: StaticRange): void {
    CSS.highlights.get(this.groupOf.get(r) ?? '')?.delete(r);
    this.groupOf.delete(r);
  }
}

/** The page's highlight named `name`, registered on first use (shared by every editor of the page). */
function highlightOf(name: string): Highlight {
  let h = CSS.highlights.get(name);
  if (!h) CSS.highlights.set(name, (h = new Highlight()));
  return h;
}
