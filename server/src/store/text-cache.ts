import { gunzipAsync } from '../gunzip';
import type { DocumentBlobs } from './shared-store';

/**
 * Decoded dump texts by sha256, least recently used first out, up to `maxChars` in all
 * (default 64 Mi characters). Annotation writes need the text for range checks and quotes. A miss
 * is decompressed on the thread pool (a large dump must not stall the event loop), once however
 * many ask for it meanwhile.
 */
export class TextCache {
  private readonly texts = new Map<string, string>();
  private chars = 0;
  private readonly loading = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly documents: DocumentBlobs,
    private readonly maxChars = 64 * 1024 * 1024,
  ) {}

  /** The text of a stored blob, or undefined when there is no such blob. */
  async get(sha256: string): Promise<string | undefined> {
    const hit = this.texts.get(sha256);
    if (hit !== undefined) {
      this.texts.delete(sha256);
      this.texts.set(sha256, hit);
      return hit;
    }
    let load = this.loading.get(sha256);
    if (!load) {
      load = this.load(sha256).finally(() => this.loading.delete(sha256));
      this.loading.set(sha256, load);
    }
    return load;
  }

  private async load(sha256: string): Promise<string | undefined> {
    const gz = await this.documents.textGzip(sha256);
    if (!gz) return undefined;
    const text = (await gunzipAsync(gz)).toString('utf8');
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
