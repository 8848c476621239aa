import { gunzipSync } from 'node:zlib';
import type { DocumentsStore } from './documents-store';

/**
 * Decoded dump texts by sha256, least recently used first out, up to `maxChars` in all
 * (default 64 Mi characters). Annotation writes need the text for range checks and quotes.
 */
export class TextCache {
  private readonly texts = new Map<string, string>();
  private chars = 0;

  constructor(
    private readonly documents: DocumentsStore,
    private readonly maxChars = 64 * 1024 * 1024,
  ) {}

  /** The text of a stored blob, or undefined when there is no such blob. */
  get(sha256: string): string | undefined {
    const hit = this.texts.get(sha256);
    if (hit !== undefined) {
      this.texts.delete(sha256);
      this.texts.set(sha256, hit);
      return hit;
    }
    const gz = this.documents.textGzip(sha256);
    if (!gz) return undefined;
    const text = gunzipSync(gz).toString('utf8');
    this.put(sha256, text);
    return text;
  }

  /** Remembers a text just ingested. */
  put(sha256: string, text: string): void {
    if (text.length > this.maxChars || this.texts.has(sha256)) return;
    this.texts.set(sha256, text);
    this.chars += text.length;
    for (const [key, value] of this.texts) {
      if (this.chars <= this.maxChars) break;
      this.texts.delete(key);
      this.chars -= value.length;
    }
  }
}
