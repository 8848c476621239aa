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

const groups = new Map<string, string | null>();

/** The highlight group of a token style, or null when the style is not painted (uncoloured, or drawn as a mark); memoized per style. */
export function paintGroup(style: string): string | null {
  let group = groups.get(style);
  if (group === undefined) {
    group = null;
    for (const name of style.split(/[\s.]+/)) {
      if (name === 'definition') {
        group = null;
        break;
      }
      group = GROUPS[name] ?? group;
    }
    groups.set(style, group);
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
  readonly ranges: ReadonlyArray<readonly [Highlight, StaticRange]>;
}

/** The text nodes of a drawn line in document order, skipping widgets (badges, carets), whose text is not the document's. */
function textNodes(el: Node, out: Text[]): Text[] {
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === Node.TEXT_NODE) out.push(c as Text);
    else if (c instanceof HTMLElement && c.contentEditable !== 'false') textNodes(c, out);
  }
  return out;
}

/** Static ranges over `nodes` for the painted tokens of a line, each with the highlight of its group. */
function rangesOf(nodes: readonly Text[], tokens: LineTokens, highlight: (group: string) => Highlight): Array<readonly [Highlight, StaticRange]> {
  const out: Array<readonly [Highlight, StaticRange]> = [];
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
    out.push([highlight(group), new StaticRange({ startContainer, startOffset, endContainer, endOffset: to - base })]);
  }
  return out;
}

/**
 * Paints the coloured tokens of an editor's drawn lines into the page's `CSS.highlights`, keeping
 * the ranges of lines whose DOM did not change; `paint` after every redraw, `clear` on destroy.
 * Ranges go in and out a line at a time, and each group's `Highlight` is looked up once.
 */
export class TokenPainter {
  private readonly lines = new WeakMap<Element, LinePaint>();
  private shown = new Set<LinePaint>();
  private readonly highlights = new Map<string, Highlight>();
  private readonly highlight = (group: string): Highlight => {
    let h = this.highlights.get(group);
    if (!h) {
      const name = `ir-${group}`;
      h = CSS.highlights.get(name);
      // Shared by every editor of the page: each adds and removes only its own ranges.
      if (!h) CSS.highlights.set(name, (h = new Highlight()));
      this.highlights.set(group, h);
    }
    return h;
  };

  /**
   * Repaints the lines drawn in `view`, with `tokensOf(lineStart, text)` giving each line's tokens;
   * with `fresh` false, lines not painted yet stay plain (kept ones stay painted).
   */
  paint(view: EditorView, tokensOf: (from: number, text: string) => LineTokens, fresh = true): void {
    const next = new Set<LinePaint>();
    for (let el = view.contentDOM.firstElementChild; el; el = el.nextElementSibling) {
      if (!el.classList.contains('cm-line')) continue;
      const from = view.posAtDOM(el, 0);
      let p = this.lines.get(el);
      if (!p || p.from !== from || !p.nodes.every((t, i) => t.length === p?.lengths[i] && el.contains(t))) {
        if (!fresh) continue;
        const line = view.state.doc.lineAt(from);
        const nodes = textNodes(el, []);
        p = { from, nodes, lengths: nodes.map((t) => t.length), ranges: rangesOf(nodes, tokensOf(line.from, line.text), this.highlight) };
        this.lines.set(el, p);
      }
      next.add(p);
    }
    for (const p of this.shown) if (!next.has(p)) for (const [h, r] of p.ranges) h.delete(r);
    for (const p of next) if (!this.shown.has(p)) for (const [h, r] of p.ranges) h.add(r);
    this.shown = next;
  }

  /** Takes every range of this editor out of the page's highlights. */
  clear(): void {
    for (const p of this.shown) for (const [h, r] of p.ranges) h.delete(r);
    this.shown = new Set();
  }
}
