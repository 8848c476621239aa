import { layerGroups, type DocumentMeta, type ImportResult } from '@seam/shared/model';
import type { FolderFile, RoomApi, SendOptions } from '../room/api';
import { uploadItem, type UploadItem } from './upload-item';
import { archiveType } from '../room/import/archive-type';
import type { Gathered } from '../room/import/folder-files';
import { fileCount, type Transfer } from '../room/import/progress-text';

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
  /** The upload or import under way, with its progress; null when none is. */
  transfer = $state.raw<Transfer | null>(null);
  /** The last import's answer (what was added and skipped, and why), until the next upload or import. */
  lastImport = $state.raw<ImportResult | null>(null);
  uploadError = $state<string | null>(null);
  private controller: AbortController | null = null;
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

  /** Stops the upload or import under way; the server keeps nothing of a body cut short. */
  cancel(): void {
    this.controller?.abort();
  }

  /**
   * Runs one upload or import with its progress in `transfer` (bytes while sending, then waiting
   * for the server), cancellable; failures land in `uploadError` prefixed by `label`, nothing is
   * dropped silently. Returns the answer, or null when it failed.
   */
  private async send<T>(label: string, kind: Transfer['kind'], total: number, run: (opts: SendOptions) => Promise<T>): Promise<T | null> {
    const controller = new AbortController();
    this.controller = controller;
    this.transfer = { label, kind, phase: 'sending', loaded: 0, total };
    try {
      return await run({
        signal: controller.signal,
        onProgress: (p) => {
          const t = p.total > 0 ? p.total : total;
          this.transfer = { label, kind, phase: t > 0 && p.loaded >= t ? 'waiting' : 'sending', loaded: p.loaded, total: t };
        },
      });
    } catch (e) {
      this.uploadError = `${label}: ${e instanceof DOMException && e.name === 'AbortError' ? 'cancelled, nothing was added' : e instanceof Error ? e.message : String(e)}`;
      return null;
    } finally {
      if (this.controller === controller) {
        this.controller = null;
        this.transfer = null;
      }
    }
  }

  private add(docs: readonly DocumentMeta[]): void {
    const fresh = docs.filter((d) => !this.list.some((x) => x.id === d.id));
    if (fresh.length > 0) this.listed = [...this.listed, ...fresh];
  }

  /** Uploads dumps (as text) and traces (as raw bodies) one by one and returns the last one's id. */
  upload(files: readonly UploadItem[]): Promise<string | null> {
    this.uploadError = null;
    return this.uploadEach(files);
  }

  private async uploadEach(files: readonly UploadItem[]): Promise<string | null> {
    let last: string | null = null;
    for (const f of files) {
      const size = 'text' in f ? new Blob([f.text]).size : f.body.size;
      const meta = await this.send(f.title, 'upload', size, (opts) =>
        'text' in f ? this.api.upload(this.roomId, this.token, f.title, f.text, opts) : this.api.uploadTrace(this.roomId, this.token, f.title, f.body, f.contentType, opts),
      );
      if (!meta) continue;
      last = meta.id;
      this.add([{ id: meta.id, title: f.title, kind: meta.kind, bytes: meta.bytes, sha256: meta.sha256, createdAt: Date.now() }]);
    }
    return last;
  }

  /** After an import: its documents listed, its answer kept, and the first document of its first group to open. */
  private imported(r: ImportResult | null): string | null {
    if (!r) return null;
    this.lastImport = r;
    this.add(r.documents);
    return layerGroups(r.documents)[0]?.docs[0]?.id ?? null;
  }

  /** Imports a folder's files in one request; the server groups them into modules (all or nothing). */
  private async importFolder(files: readonly FolderFile[]): Promise<string | null> {
    const total = files.reduce((n, f) => n + f.file.size, 0);
    return this.imported(await this.send(fileCount(files.length), 'import', total, (opts) => this.api.importFiles(this.roomId, this.token, files, opts)));
  }

  /** Imports a `.zip`, `.tar.gz` or `.tar` archive sent whole. */
  private async importArchive(file: File, contentType: string): Promise<string | null> {
    return this.imported(await this.send(file.name, 'import', file.size, (opts) => this.api.importArchive(this.roomId, this.token, file, contentType, opts)));
  }

  /**
   * Brings in what was dropped or picked: a folder as one import, each archive as an import, other
   * files one by one as dumps or traces. Returns the id of the document to open, if any; each
   * failure is reported and the rest still go.
   */
  async bringIn(g: Gathered): Promise<string | null> {
    this.uploadError = null;
    this.lastImport = null;
    if (g.folder) return this.importFolder(g.files);
    let open: string | null = null;
    const singles: UploadItem[] = [];
    for (const f of g.files) {
      const type = archiveType(f.path);
      if (type) open = (await this.importArchive(f.file, type)) ?? open;
      else singles.push(await uploadItem(f.file));
    }
    if (singles.length > 0) open = (await this.uploadEach(singles)) ?? open;
    return open;
  }
}
