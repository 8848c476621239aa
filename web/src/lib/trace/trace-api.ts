import { decodeWindowColumns, type OpAggregate, type TraceSummary, type WindowColumns } from '@seam/shared/trace';
import { failure } from '../api';

/** The trace routes of one document (`/api/rooms/:id/documents/:docId/trace/…`), read with a room token. */
export class TraceApi {
  private readonly root: string;

  constructor(
    base: string,
    roomId: string,
    docId: string,
    private readonly token: string,
    private readonly fetcher: typeof fetch = (...a) => fetch(...a),
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

  summary(): Promise<TraceSummary> {
    return this.get('summary');
  }

  ops(): Promise<OpAggregate[]> {
    return this.get('ops');
  }

  /** The whole trace's events of every track, downsampled to what a timeline shows at once: what it draws first. */
  overview(signal?: AbortSignal): Promise<WindowColumns> {
    return this.columns('overview', signal);
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
