import type { OpAggregate, EventWindow, TraceSummary } from '@seam/shared/trace';
import { failure } from '../api';

/** A window of events of every track, as `GET …/trace/events` answers. */
export interface TraceWindows {
  readonly fromUs: number;
  readonly toUs: number;
  readonly windows: readonly EventWindow[];
}

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

  private async get<T>(path: string, signal?: AbortSignal): Promise<T> {
    const res = await this.fetcher(`${this.root}/${path}`, { headers: { Authorization: `Bearer ${this.token}` }, ...(signal ? { signal } : {}) });
    if (!res.ok) throw await failure(res);
    return (await res.json()) as T;
  }

  summary(): Promise<TraceSummary> {
    return this.get('summary');
  }

  ops(): Promise<OpAggregate[]> {
    return this.get('ops');
  }

  /** The events of every track overlapping [fromUs, toUs], at most `limit` per track (downsampled past it). */
  events(fromUs: number, toUs: number, limit: number, signal?: AbortSignal): Promise<TraceWindows> {
    return this.get(`events?from=${fromUs}&to=${toUs}&limit=${limit}`, signal);
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
