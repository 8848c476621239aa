import { decodeWindowColumns, type OpAggregate, type TraceSummary, type WindowColumns } from '@seam/shared/trace';
import { failure } from '../room/api';
import type { RoomPrefetch } from '../room/prefetch';

/** The trace routes of one document (`/api/rooms/:id/documents/:docId/trace/…`), read with a room token. */
export class TraceApi {
  private readonly root: string;

  constructor(
    base: string,
    private readonly roomId: string,
    private readonly docId: string,
    private readonly token: string,
    private readonly fetcher: typeof fetch = (...a) => fetch(...a),
    private readonly prefetch: RoomPrefetch | null = null,
  ) {
    this.root = `${base}/api/rooms/${encodeURIComponent(roomId)}/documents/${encodeURIComponent(docId)}/trace`;
  }

  private async read(path: string, signal?: AbortSignal): Promise<Response> {
    const res = await this.fetcher(`${this.root}/${path}`, { headers: { Authorization: `Bearer ${this.token}` }, ...(signal ? { signal } : {}) });
    if (!res.ok) throw await failure(res);
    return res;
  }

  private async get<T>(path: string): Promise<T> {
    return (await (await this.read(path)).json()) as T;
  }

  /** Windows in columns, decoded (a `TraceFormatError` when the bytes are not such windows). */
  private async columns(path: string, signal?: AbortSignal): Promise<WindowColumns> {
    return decodeWindowColumns(new Uint8Array(await (await this.read(path, signal)).arrayBuffer()));
  }

  /** What `index.html` started fetching of this trace at navigation (when it is the room's first document, for this room and token); null when nothing or it failed. */
  private async early<K extends 'summary' | 'overview'>(part: K): Promise<Awaited<NonNullable<Awaited<RoomPrefetch['trace']>>[K]> | null> {
    const p = this.prefetch;
    if (!p?.trace || p.roomId !== this.roomId || p.token !== this.token) return null;
    const t = await p.trace;
    return t && t.docId === this.docId ? ((await t[part]) ?? null) : null;
  }

  async summary(): Promise<TraceSummary> {
    return ((await this.early('summary')) as TraceSummary | null) ?? this.get('summary');
  }

  ops(): Promise<OpAggregate[]> {
    return this.get('ops');
  }

  /** The whole trace's events of every track, downsampled to what a timeline shows at once: what it draws first. */
  async overview(signal?: AbortSignal): Promise<WindowColumns> {
    const early = await this.early('overview');
    return early ? decodeWindowColumns(new Uint8Array(early)) : this.columns('overview', signal);
  }

  /** The events of every track overlapping [fromUs, toUs], at most `limit` per track (downsampled past it). */
  events(fromUs: number, toUs: number, limit: number, signal?: AbortSignal): Promise<WindowColumns> {
    return this.columns(`events?from=${fromUs}&to=${toUs}&limit=${limit}&format=columns`, signal);
  }

  /** The original trace's bytes, gzipped (for Perfetto UI). */
  async original(): Promise<ArrayBuffer> {
    const res = await this.fetcher(`${this.root}/original`, { headers: { Authorization: `Bearer ${this.token}` } });
    if (!res.ok) throw await failure(res);
    return res.arrayBuffer();
  }

  /** Where the original trace, gzipped, downloads from (the token in the query: a plain link cannot send a header). */
  originalUrl(): string {
    return `${this.root}/original?token=${encodeURIComponent(this.token)}`;
  }
}
