/**
 * Values keyed by spans of one text, so that repeated text (a type, a name) is looked up by its
 * characters: the span is sliced (V8 shares the text's characters rather than copying them) and
 * hashed and compared natively by a `Map`, several times faster than hashing char codes in script.
 */
export class SpanTable<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly text: string) {}

  /** The value stored for the same characters as `text[from, to)`, if any. */
  get(from: number, to: number): V | undefined {
    return this.map.get(this.text.slice(from, to));
  }

  /** Stores `value` for `key`, characters already sliced from the text (a name just read). */
  setKey(key: string, value: V): void {
    this.map.set(key, value);
  }

  /** Stores `value` for the characters of `text[from, to)`. */
  set(from: number, to: number, value: V): void {
    this.map.set(this.text.slice(from, to), value);
  }
}
