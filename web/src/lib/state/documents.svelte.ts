import type { DocumentMeta } from '@seam/shared/model';
import type { RoomApi } from '../api';
import type { UploadItem } from './upload-item';

/** The id the room's notes use in the document list and in presence. */
export const NOTES_ID = 'notes';

/** The open text: loading, loaded, or failed with a message. */
export type OpenText =
  | { readonly state: 'loading'; readonly docId: string }
  | { readonly state: 'ready'; readonly docId: string; readonly text: string }
  | { readonly state: 'failed'; readonly docId: string; readonly message: string };

/**
 * The room's documents: listed by the API at load and kept live from the server-written
 * `documents` map, and the open one's text, loaded over HTTP (dumps never travel in the CRDT).
 */
export class DocumentsState {
  private listed = $state.raw<DocumentMeta[]>([]);
  private live = $state.raw<Record<string, DocumentMeta>>({});
  openId = $state<string | null>(null);
  openText = $state.raw<OpenText | null>(null);
  uploading = $state(0);
  uploadError = $state<string | null>(null);
  private readonly cache = new Map<string, string>();

  readonly list: DocumentMeta[] = $derived.by(() => {
    const byId = new Map<string, DocumentMeta>();
    for (const d of this.listed) byId.set(d.id, d);
    for (const [id, d] of Object.entries(this.live)) if (d && typeof d === 'object') byId.set(id, { ...d, id });
    return [...byId.values()].sort((a, b) => (a.createdAt ?? 0) - (b.createdAt ?? 0) || a.title.localeCompare(b.title));
  });

  constructor(
    private readonly api: RoomApi,
    private readonly roomId: string,
    private readonly token: string,
  ) {}

  /** The documents the HTTP API listed when the room loaded. */
  setListed(docs: readonly DocumentMeta[]): void {
    this.listed = [...docs];
  }

  /** The server-written `documents` map of the room document, as it changes. */
  setLive(docs: Record<string, DocumentMeta>): void {
    this.live = docs;
  }

  /** Opens a document; dump texts are fetched once and kept for the session. */
  open(docId: string): void {
    if (this.openId === docId) return;
    this.openId = docId;
    // A trace is read in pieces by its own view; its original may be a gigabyte.
    if (docId === NOTES_ID || this.list.find((d) => d.id === docId)?.kind === 'trace') {
      this.openText = null;
      return;
    }
    const cached = this.cache.get(docId);
    if (cached !== undefined) {
      this.openText = { state: 'ready', docId, text: cached };
      return;
    }
    this.openText = { state: 'loading', docId };
    this.api.text(this.roomId, this.token, docId).then(
      (text) => {
        performance.mark('seam:text-loaded');
        this.cache.set(docId, text);
        if (this.openId === docId) this.openText = { state: 'ready', docId, text };
      },
      (e: unknown) => {
        if (this.openId === docId) this.openText = { state: 'failed', docId, message: e instanceof Error ? e.message : String(e) };
      },
    );
  }

  /** Uploads dumps (as text) and traces (as raw bodies) and returns the last one's id; failures are reported, nothing is dropped silently. */
  async upload(files: readonly UploadItem[]): Promise<string | null> {
    this.uploadError = null;
    let last: string | null = null;
    for (const f of files) {
      this.uploading += 1;
      try {
        const meta = 'text' in f ? await this.api.upload(this.roomId, this.token, f.title, f.text) : await this.api.uploadTrace(this.roomId, this.token, f.title, f.body, f.contentType);
        last = meta.id;
        if (!this.list.some((d) => d.id === meta.id)) {
          this.listed = [...this.listed, { id: meta.id, title: f.title, kind: meta.kind, bytes: meta.bytes, sha256: meta.sha256, createdAt: Date.now() }];
        }
      } catch (e) {
        this.uploadError = `${f.title}: ${e instanceof Error ? e.message : String(e)}`;
      } finally {
        this.uploading -= 1;
      }
    }
    return last;
  }
}
