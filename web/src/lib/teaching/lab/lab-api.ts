import type { LabResults, LabView } from '@seam/shared/teaching';
import { failure, type CreatedRoom } from '../../room/api';

/** A lab as `GET /api/labs` lists it. */
export type LabListing = Pick<LabView, 'id' | 'code' | 'title' | 'summary' | 'steps'>;

async function json<T>(fetcher: typeof fetch, path: string, init: RequestInit = {}, token?: string): Promise<T> {
  const headers = new Headers(init.headers);
  if (token) headers.set('Authorization', `Bearer ${token}`);
  const res = await fetcher(path, { ...init, headers });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

/** The lab endpoints (docs/labs.md); errors are the API's `ApiError`. */
export class LabApi {
  constructor(private readonly fetcher: typeof fetch = (...a) => fetch(...a)) {}

  /** `GET /api/labs`: the labs the server offers. */
  async list(): Promise<LabListing[]> {
    return (await json<{ labs: LabListing[] }>(this.fetcher, '/api/labs')).labs;
  }

  /** `POST /api/rooms` with a lab: a new room opened from it; `invitation` when the server creates rooms by invitation. */
  createRoom(title: string, labId: string, invitation?: string): Promise<CreatedRoom & { lab: LabView }> {
    return json(this.fetcher, '/api/rooms', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ title, lab: labId }),
    }, invitation);
  }

  /** `POST /api/rooms/:id/lab/check`: evaluates the room's steps now. */
  async check(roomId: string, token: string): Promise<LabResults> {
    return (await json<{ results: LabResults }>(this.fetcher, `/api/rooms/${encodeURIComponent(roomId)}/lab/check`, { method: 'POST' }, token)).results;
  }
}
