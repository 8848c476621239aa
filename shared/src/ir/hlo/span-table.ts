const EMPTY_SLOTS = 64;
/** At most this many keys share one hash; more are not stored, so a lookup compares at most this many. */
const SAME_HASH_LIMIT = 8;
/** Spans up to this long are hashed whole; longer ones by samples. */
const WHOLE = 32;

/**
 * Values keyed by spans of one text, so that repeated text (a type, an opcode, metadata) is found
 * without building a string: the span is hashed from its char codes, and sliced (V8 shares the text's
 * characters) only to be compared with a key of the same hash.
 */
export class SpanTable<V> {
  private readonly keys: string[] = [];
  private readonly values: V[] = [];
  private hashes = new Int32Array(EMPTY_SLOTS / 2);
  /** Open addressing: entry index + 1, or 0 for an empty slot. */
  private slots = new Int32Array(EMPTY_SLOTS);

  constructor(private readonly text: string) {}

  /** The value stored for the same characters as `text[from, to)`, if any. */
  get(from: number, to: number): V | undefined {
    const hash = spanHash(this.text, from, to);
    const mask = this.slots.length - 1;
    let span: string | undefined;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const e = (this.slots[i] as number) - 1;
      if (e < 0) return undefined;
      if (this.hashes[e] !== hash) continue;
      // A slice shares the text's characters and compares natively, far faster than `startsWith`.
      span ??= this.text.slice(from, to);
      if (this.keys[e] === span) return this.values[e];
    }
  }

  /** Stores `value` for the characters of `text[from, to)`, unless too many keys share their hash. */
  set(from: number, to: number, value: V): void {
    this.store(this.text.slice(from, to), spanHash(this.text, from, to), value);
  }

  /** Stores `value` for `key`, characters already sliced from the text (a name just read). */
  setKey(key: string, value: V): void {
    this.store(key, spanHash(key, 0, key.length), value);
  }

  private store(key: string, hash: number, value: V): void {
    if (2 * (this.keys.length + 1) > this.slots.length) this.grow();
    const mask = this.slots.length - 1;
    let same = 0;
    let i = hash & mask;
    for (; ; i = (i + 1) & mask) {
      const e = (this.slots[i] as number) - 1;
      if (e < 0) break;
      if (this.hashes[e] !== hash) continue;
      if (this.keys[e] === key) {
        this.values[e] = value;
        return;
      }
      if (++same >= SAME_HASH_LIMIT) return;
    }
    const e = this.keys.length;
    this.keys.push(key);
    this.values.push(value);
    this.hashes[e] = hash;
    this.slots[i] = e + 1;
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const hashes = new Int32Array(slots.length / 2);
    hashes.set(this.hashes);
    const mask = slots.length - 1;
    for (let e = 0; e < this.keys.length; e++) {
      let i = (hashes[e] as number) & mask;
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = e + 1;
    }
    this.slots = slots;
    this.hashes = hashes;
  }
}

/**
 * The hash `SpanTable` keys `text[from, to)` by: FNV-1a over its char codes and its length. A span
 * longer than 32 characters (metadata is ~100) is sampled: 16 characters spread over it and its
 * last 8, where name stacks and frame ids differ.
 */
export function spanHash(text: string, from: number, to: number): number {
  const len = to - from;
  let h = 0x811c9dc5 | 0;
  if (len <= WHOLE) {
    for (let p = from; p < to; p++) h = Math.imul(h ^ text.charCodeAt(p), 0x01000193);
  } else {
    for (let p = from; p < to; p += len >> 4) h = Math.imul(h ^ text.charCodeAt(p), 0x01000193);
    for (let p = to - 8; p < to; p++) h = Math.imul(h ^ text.charCodeAt(p), 0x01000193);
  }
  return Math.imul(h ^ len, 0x01000193);
}
