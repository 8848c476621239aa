/** Children per node: one per ASCII character; other characters are never stored. */
const FANOUT = 128;
/** At most this many nodes (512 bytes each); once full, nothing more is stored. */
const MAX_NODES = 4096;

/**
 * Values keyed by short spans of one text (types, opcodes), found by walking a trie one character
 * at a time as a reader reads them: no string is built, hashed or compared to find a span seen
 * before. Node 0 means "no stored span continues this way"; walking on from it stays at 0, so a
 * reader can walk a whole span and look once at the end.
 */
export class SpanTrie<V> {
  /** The node a walk starts from. */
  static readonly ROOT = 1;
  /** `kids[node * FANOUT + c]`: the node after character `c`, or 0. Row 0 stays all 0. */
  private kids = new Int32Array(FANOUT * 64);
  private readonly values: (V | undefined)[] = [undefined, undefined];

  /** The node after char code `c` from `node`, or 0 when no stored span continues that way. */
  next(node: number, c: number): number {
    return c < FANOUT ? (this.kids[node * FANOUT + c] as number) : 0;
  }

  /** The value of the span whose walk ended at `node`, if one was stored. */
  at(node: number): V | undefined {
    return this.values[node];
  }

  /** Stores `value` for the characters of `text[from, to)`, unless they are not ASCII or the trie is full. */
  set(text: string, from: number, to: number, value: V): void {
    let node = SpanTrie.ROOT;
    for (let p = from; p < to; p++) {
      const c = text.charCodeAt(p);
      if (c >= FANOUT) return;
      let kid = this.kids[node * FANOUT + c] as number;
      if (kid === 0) {
        kid = this.values.length;
        if (kid === MAX_NODES) return;
        if ((kid + 1) * FANOUT > this.kids.length) this.grow();
        this.values.push(undefined);
        this.kids[node * FANOUT + c] = kid;
      }
      node = kid;
    }
    this.values[node] = value;
  }

  private grow(): void {
    const kids = new Int32Array(this.kids.length * 2);
    kids.set(this.kids);
    this.kids = kids;
  }
}
