import type { CaptureEntry, CaptureRequestInput } from '@seam/shared/model';
import type { RunnerCapabilities } from '@seam/shared/protocol';
import { failure } from '../room/api';

/** A connected runner as `GET /api/rooms/:id/runners` lists it. */
export interface RunnerListing {
  readonly name: string;
  readonly capabilities: RunnerCapabilities;
  readonly busy: boolean;
  readonly connectedAt: number;
}

/** The capture routes of the room server, for one room and token; errors are the API's `ApiError`. */
export class CaptureApi {
  constructor(
    private readonly roomId: string,
    private readonly token: string,
    private readonly base = '',
    private readonly fetcher: typeof fetch = (...a) => fetch(...a),
  ) {}

  private async json<T>(path: string, init: RequestInit = {}): Promise<T> {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${this.token}`);
    const res = await this.fetcher(`${this.base}/api/rooms/${encodeURIComponent(this.roomId)}${path}`, { ...init, headers });
    if (!res.ok) throw await failure(res);
    return (await res.json()) as T;
  }

  /** `POST …/captures`: queues a capture and returns the job (202). */
  async request(body: CaptureRequestInput): Promise<CaptureEntry> {
    const r = await this.json<{ job: CaptureEntry }>('/captures', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return r.job;
  }

  /** `DELETE …/captures/:jobId`: cancels a queued or running capture. */
  async cancel(jobId: string): Promise<CaptureEntry> {
    const r = await this.json<{ job: CaptureEntry }>(`/captures/${encodeURIComponent(jobId)}`, { method: 'DELETE' });
    return r.job;
  }

  /** `GET …/runners`: the runners connected to the server, with their devices. */
  async runners(): Promise<RunnerListing[]> {
    const r = await this.json<{ runners: RunnerListing[] }>('/runners');
    return r.runners;
  }
}
