/**
 * Values keyed by spans of one text, so that repeated text (a type, a metadata block) is looked
 * up without slicing it into a string first: spans are hashed from their char codes and compared
 * in place with the span that was stored first.
 */
export class SpanTable<V> {
  private readonly buckets = new Map<number, Array<{ from: number; to: number; value: V }>>();

  constructor(private readonly text: string) {}

  /** The value stored for the same characters as `text[from, to)`, if any; `hash` when known. */
  get(from: number, to: number, hash = hashSpan(this.text, from, to)): V | undefined {
    const list = this.buckets.get(hash);
    if (!list) return undefined;
    for (const e of list) if (this.same(e.from, e.to, from, to)) return e.value;
    return undefined;
  }

  /** Stores `value` for the characters of `text[from, to)`; `hash` when known. */
  set(from: number, to: number, value: V, hash = hashSpan(this.text, from, to)): void {
    const h = hash;
    const list = this.buckets.get(h);
    if (list) list.push({ from, to, value });
    else this.buckets.set(h, [{ from, to, value }]);
  }

  private same(a: number, aEnd: number, b: number, bEnd: number): boolean {
    if (aEnd - a !== bEnd - b) return false;
    const t = this.text;
    for (let i = 0; i < aEnd - a; i++) if (t.charCodeAt(a + i) !== t.charCodeAt(b + i)) return false;
    return true;
  }
}

/** FNV-1a offset basis and prime, for callers that hash while they scan. */
export const FNV_BASIS = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** FNV-1a over the char codes of `text[from, to)`. */
export function hashSpan(text: string, from: number, to: number): number {
  let h = FNV_BASIS;
  for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}
