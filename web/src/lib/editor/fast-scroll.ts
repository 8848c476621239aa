import { Facet, type EditorState, type Extension, type RangeSet, type RangeValue } from '@codemirror/state';
import { EditorView, ViewPlugin, type BlockInfo, type Decoration, type DecorationSet } from '@codemirror/view';
import { SETTLE_MS, isFastScroll } from './scroll-speed';

/** CodeMirror redraws when its drawn lines reach within this many pixels of the visible edge (its `MaxCoverMargin`). */
const COVER_PX = 250;

/**
 * Called as a fast scroll drawn by the layer settles: CodeMirror has drawn the lines where it
 * stopped, and the layer hides when these return, in the same task (no frame shows the lines
 * unfinished). CodeMirror may have drawn them before the hand-back, while the layer showed the
 * scroll (any update of the editor measures the scroller where it is), so a redraw is no sign of it.
 */
export const fastScrollSettled = Facet.define<(view: EditorView) => void>();

/** Where the layer reads the marks and line glyphs it repeats (the annotations'). */
export interface FastScrollSource {
  readonly marks: (state: EditorState) => DecorationSet | undefined;
  readonly glyphs: (state: EditorState) => Glyphs | undefined;
}

/** Line glyphs: a class for the line-number cell (a `GutterMarker`'s `elementClass`). */
type Glyphs = RangeSet<RangeValue & { readonly elementClass?: string }>;

/** Where the layer draws: measured from CodeMirror's DOM once per fast scroll. */
interface Frame {
  readonly docTop: number;
  readonly height: number;
  /** Characters drawn per line: what fits in the scroller's width. */
  readonly chars: number;
}

/**
 * The lines of a fast scroll (`isFastScroll`), drawn as plain text by a light layer over the
 * editor, while CodeMirror keeps its lines where they were; when the scroll settles, CodeMirror
 * draws the lines in view (with colour, carets and selection) and the layer hides in the same
 * frame. CodeMirror redraws its viewport and measures every new line at each scroll frame, which
 * does not fit in a frame when every frame brings new lines; the layer places the lines by
 * CodeMirror's own height map, with their numbers, annotation marks and glyphs, and nothing else.
 * It hands back `SETTLE_MS` after the last scroll event, and at once on a pointer press, a key or
 * focus, so clicks and keys always reach CodeMirror's drawn lines. Only for unwrapped text scrolled
 * to its left edge: the layer shows no horizontal scroll or wrapping.
 */
export function fastScroll(source: FastScrollSource): Extension {
  return [
    ViewPlugin.define((view) => new FastScrollLayer(view, source)),
    EditorView.theme({
      '.cm-fast-layer': { position: 'absolute', top: '0', left: '0', zIndex: '250', overflow: 'hidden', backgroundColor: 'var(--bg)', pointerEvents: 'none', userSelect: 'none', display: 'none' },
      // CodeMirror's lines under the layer are not painted (their layout stays, for its measures). Its
      // lines, not its content: a focused element that turns hidden loses the focus.
      '.cm-fast-layer.cm-fast-on': { display: 'block' },
      '.cm-fast-layer.cm-fast-on ~ .cm-content > *': { visibility: 'hidden' },
      '.cm-fast-line': { position: 'absolute', left: '0', right: '0', whiteSpace: 'pre', overflow: 'hidden' },
      // The geometry measured once per fast scroll (`start`) comes in as variables set on the layer.
      '.cm-fast-num': {
        position: 'absolute', top: '0', bottom: '0', left: '0', boxSizing: 'border-box', width: 'var(--fast-num-width)',
        padding: '0 var(--fast-num-pad) 0 14px', textAlign: 'right', color: 'var(--fg-muted)',
      },
      '.cm-fast-text': { position: 'absolute', top: '0', left: 'var(--fast-text-left)' },
    }),
  ];
}

class FastScrollLayer {
  private readonly layer: HTMLDivElement;
  private readonly pool: HTMLDivElement[] = [];
  private frame: Frame | null = null;
  private lastTop: number;
  private lastAt = -Infinity;
  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  private passing = false;

  constructor(
    private readonly view: EditorView,
    private readonly source: FastScrollSource,
  ) {
    this.layer = document.createElement('div');
    this.layer.className = 'cm-fast-layer';
    this.layer.setAttribute('aria-hidden', 'true');
    // First in the scroller, so that a sibling rule hides CodeMirror's lines under it (see the theme).
    view.scrollDOM.prepend(this.layer);
    this.lastTop = view.scrollDOM.scrollTop;
    // Capturing on the editor's root runs before the scroller's own listeners, CodeMirror's among them.
    view.dom.addEventListener('scroll', this.onScroll, { capture: true });
    for (const type of ['pointerdown', 'keydown', 'focusin']) view.dom.addEventListener(type, this.settle, { capture: true });
  }

  private readonly onScroll = (e: Event): void => {
    const s = this.view.scrollDOM;
    if (e.target !== s || this.passing) return;
    // The layer shows no horizontal scroll: a sideways scroll goes to CodeMirror.
    if (s.scrollLeft !== 0) return this.settle();
    const now = performance.now();
    const top = s.scrollTop;
    const gap = now - this.lastAt;
    const fast = isFastScroll(gap, (top - this.lastTop) / this.view.defaultLineHeight);
    this.lastTop = top;
    this.lastAt = now;
    if (!this.frame && !(fast && this.leavesDrawnLines(top))) return;
    e.stopPropagation();
    this.frame ??= this.start();
    this.draw(top);
    this.settleTimer ??= setTimeout(this.settleWhenQuiet, SETTLE_MS);
  };

  /** Settles once no scroll event came for `SETTLE_MS` (one timer per scroll, moved on rather than reset at every event). */
  private readonly settleWhenQuiet = (): void => {
    const quiet = performance.now() - this.lastAt;
    this.settleTimer = quiet >= SETTLE_MS ? undefined : setTimeout(this.settleWhenQuiet, SETTLE_MS - quiet);
    if (!this.settleTimer) this.settle();
  };

  /** True when CodeMirror would have to draw new lines to show the view scrolled to `top`. */
  private leavesDrawnLines(top: number): boolean {
    const { view } = this;
    const docTop = this.docTopIn(view.scrollDOM);
    const { from, to } = view.viewport;
    const seenTop = top - docTop;
    const seenBottom = seenTop + view.scrollDOM.clientHeight;
    return (from > 0 && seenTop - COVER_PX < view.lineBlockAt(from).top) || (to < view.state.doc.length && seenBottom + COVER_PX > view.lineBlockAt(to).bottom);
  }

  /** The document's top in the scroller's content (its padding included). */
  private docTopIn(s: HTMLElement): number {
    return this.view.documentTop - s.getBoundingClientRect().top + s.scrollTop;
  }

  /** Measures where to draw, shows the layer over CodeMirror's lines and pauses its gap watch. */
  private start(): Frame {
    const { view } = this;
    const s = view.scrollDOM;
    const rect = s.getBoundingClientRect();
    const gutters = view.dom.querySelector('.cm-gutters')?.getBoundingClientRect();
    const numbers = view.dom.querySelector('.cm-lineNumbers .cm-gutterElement');
    const line = view.contentDOM.querySelector('.cm-line');
    const numWidth = gutters ? gutters.width : 0;
    // CodeMirror's numbers end at their cell's right padding, left of the fold gutter.
    const numPad = gutters && numbers ? gutters.right - numbers.getBoundingClientRect().right + parseFloat(getComputedStyle(numbers).paddingRight) : 0;
    const textLeft = line ? line.getBoundingClientRect().left - rect.left + parseFloat(getComputedStyle(line).paddingLeft) : numWidth;
    const style = this.layer.style;
    // The gutters' background and border as one column, so that rows of fractional height leave no seams.
    style.background = `linear-gradient(to right, var(--bg-soft) ${numWidth - 1}px, var(--border) ${numWidth - 1}px ${numWidth}px, var(--bg) ${numWidth}px)`;
    style.setProperty('--fast-num-width', `${numWidth}px`);
    style.setProperty('--fast-num-pad', `${numPad}px`);
    style.setProperty('--fast-text-left', `${textLeft}px`);
    style.width = `${s.clientWidth}px`;
    style.tabSize = String(view.state.tabSize);
    this.layer.classList.add('cm-fast-on');
    gapWatch(view)?.observer.disconnect();
    return { docTop: this.docTopIn(s), height: s.clientHeight, chars: Math.ceil(s.clientWidth / view.defaultCharacterWidth) + 2 };
  }

  /** Draws the lines in view with the scroller at `top`, reusing one element per line. */
  private draw(top: number): void {
    const { view, frame } = this;
    if (!frame) return;
    const state = view.state;
    const marks = this.source.marks(state);
    const glyphs = this.source.glyphs(state);
    const seenTop = Math.max(0, top - frame.docTop);
    const first = view.lineBlockAtHeight(seenTop);
    let n = 0;
    let block: BlockInfo = first;
    for (;;) {
      this.drawLine(this.lineElement(n++), block, first.top, frame.chars, marks, glyphs);
      if (block.to >= state.doc.length || block.bottom >= seenTop + frame.height) break;
      block = view.lineBlockAt(block.to + 1);
    }
    for (let i = n; i < this.pool.length; i++) this.pool[i]!.style.display = 'none';
    // Never past the last line: the layer must not make the scroller's content taller.
    this.layer.style.transform = `translateY(${frame.docTop + first.top}px)`;
    this.layer.style.height = `${block.bottom - first.top}px`;
  }

  private lineElement(i: number): HTMLDivElement {
    let el = this.pool[i];
    if (!el) {
      el = this.layer.appendChild(document.createElement('div'));
      el.className = 'cm-fast-line';
      const num = el.appendChild(document.createElement('span'));
      num.className = 'cm-fast-num';
      el.appendChild(document.createElement('span')).className = 'cm-fast-text';
      this.pool.push(el);
    }
    return el;
  }

  private drawLine(el: HTMLDivElement, block: BlockInfo, top: number, chars: number, marks: DecorationSet | undefined, glyphs: Glyphs | undefined): void {
    const doc = this.view.state.doc;
    const line = doc.lineAt(block.from);
    const end = Math.min(line.to, line.from + chars);
    const num = el.firstChild as HTMLElement;
    const text = el.lastChild as HTMLElement;
    el.style.display = '';
    el.style.top = `${block.top - top}px`;
    el.style.height = `${block.height}px`;
    num.textContent = String(line.number);
    let glyph = '';
    glyphs?.between(line.from, line.from, (_f, _t, g) => {
      glyph = g.elementClass ?? '';
      return false;
    });
    num.className = glyph ? `cm-fast-num ${glyph}` : 'cm-fast-num';
    text.replaceChildren(...markedText(doc.sliceString(line.from, end), line.from, marks));
  }

  /** Hands the lines back to CodeMirror: it measures the scroller where it now is and draws, then the layer hides (see `fastScrollSettled`). */
  private readonly settle = (): void => {
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    if (!this.frame) return;
    this.frame = null;
    const watch = gapWatch(this.view);
    for (const gap of watch?.gaps ?? []) watch?.observer.observe(gap);
    this.passing = true;
    try {
      this.view.scrollDOM.dispatchEvent(new Event('scroll'));
    } finally {
      this.passing = false;
    }
    for (const settled of this.view.state.facet(fastScrollSettled)) settled(this.view);
    this.layer.classList.remove('cm-fast-on');
  };

  destroy(): void {
    clearTimeout(this.settleTimer);
    this.view.dom.removeEventListener('scroll', this.onScroll, { capture: true });
    for (const type of ['pointerdown', 'keydown', 'focusin']) this.view.dom.removeEventListener(type, this.settle, { capture: true });
    this.layer.remove();
  }
}

/**
 * CodeMirror draws the undrawn parts of a long document as gap elements and redraws as soon as one
 * comes into view (an `IntersectionObserver`), which would redraw during a fast scroll too. Its
 * observer and the gaps it watches are not public API: the layer pauses the observer while it shows
 * the lines, and only where it finds it (the pinned `@codemirror/view`; a test fails if it is gone).
 */
function gapWatch(view: EditorView): { readonly observer: IntersectionObserver; readonly gaps: HTMLElement[] } | null {
  const inner = (view as unknown as { observer?: { gapIntersection?: unknown; gaps?: unknown } }).observer;
  if (!(inner?.gapIntersection instanceof IntersectionObserver)) return null;
  const gaps = Array.isArray(inner.gaps) ? inner.gaps.filter((g): g is HTMLElement => g instanceof HTMLElement) : [];
  return { observer: inner.gapIntersection, gaps };
}

/** The line's text as text nodes, with the marked parts in spans of the marks' classes. */
function markedText(text: string, from: number, marks: DecorationSet | undefined): Node[] {
  if (!marks) return [document.createTextNode(text)];
  const out: Node[] = [];
  let at = 0;
  marks.between(from, from + text.length, (f, t, deco: Decoration) => {
    const a = Math.max(0, f - from);
    const b = Math.min(text.length, t - from);
    const cls = typeof deco.spec.class === 'string' ? deco.spec.class : '';
    if (b <= a || b <= at || !cls) return;
    if (a > at) out.push(document.createTextNode(text.slice(at, a)));
    const span = document.createElement('span');
    span.className = cls;
    span.textContent = text.slice(Math.max(a, at), b);
    out.push(span);
    at = b;
  });
  if (at < text.length) out.push(document.createTextNode(text.slice(at)));
  return out;
}
