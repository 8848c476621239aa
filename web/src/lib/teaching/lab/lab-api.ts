import type { LabResults, LabView } from '@seam/shared/teaching';
import { failure } from '../../api';

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

  /** `POST /api/rooms/:id/lab` as the room's owner: opens the lab in the room. */
  open(roomId: string, ownerToken: string, labId: string): Promise<{ lab: LabView; results: LabResults | null }> {
    return json(this.fetcher, `/api/rooms/${encodeURIComponent(roomId)}/lab`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ lab: labId }),
    }, ownerToken);
  }

  /** `POST /api/rooms/:id/lab/check`: evaluates the room's steps now. */
  async check(roomId: string, token: string): Promise<LabResults> {
    return (await json<{ results: LabResults }>(this.fetcher, `/api/rooms/${encodeURIComponent(roomId)}/lab/check`, { method: 'POST' }, token)).results;
  }
}
