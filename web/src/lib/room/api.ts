import { ImportResult, type DocumentMeta, type Role } from '@seam/shared/model';
import type { RoomPrefetch } from './prefetch';
import { defaultSender, type ProgressSender, type SendProgress } from './import/send-with-progress';

/** A room as `POST /api/rooms` returns it. */
export interface CreatedRoom {
  readonly id: string;
  readonly title: string;
  readonly tokens: Readonly<Record<Role, string>>;
  readonly links: Readonly<Record<string, string>>;
}

/** A room as `GET /api/rooms/:id` returns it for the token used. */
export interface RoomInfo {
  readonly id: string;
  readonly title: string;
  readonly role: Role;
  readonly documents: readonly DocumentMeta[];
  readonly settings?: Readonly<Record<string, unknown>>;
}

/** What the server tells the web app before anything else (`GET /api/config`). */
export interface ServerConfig {
  /** `invite`: creating a room needs an invitation (or the operator token). */
  readonly roomCreation: 'open' | 'invite';
}

/** What a person may ask of a long upload: to hear how far it is, and to stop it. */
export interface SendOptions {
  readonly onProgress?: (p: SendProgress) => void;
  readonly signal?: AbortSignal;
}

/** A file of a folder to import, by its path relative to the folder picked or dropped (`dump/module_0001.jit_f.after_optimizations.txt`). */
export interface FolderFile {
  readonly path: string;
  readonly file: Blob;
}

/** An HTTP error with the server's code and message (`{"error":{"code","message"}}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Reads the server's JSON error of a failed response into an `ApiError`. */
export async function failure(res: Response): Promise<ApiError> {
  let code = `http-${res.status}`;
  let message = res.statusText || `request failed (${res.status})`;
  try {
    const body = (await res.json()) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code === 'string') code = body.error.code;
    if (typeof body.error?.message === 'string') message = body.error.message;
  } catch {
    // A body that is not the JSON error shape keeps the status text.
  }
  return new ApiError(res.status, code, message);
}

/** The import's answer checked against its schema: a body of another shape is an `ApiError`, not a half-read result. */
function importAnswer(body: unknown): ImportResult {
  const r = ImportResult.safeParse(body);
  if (!r.success) throw new ApiError(500, 'bad-response', 'the server answered the import with a body of another shape');
  return r.data;
}

/** The room server's HTTP API, for one origin; tokens go in the Authorization header. */
export class RoomApi {
  constructor(
    private readonly base = '',
    private readonly fetcher: typeof fetch = (...a) => fetch(...a),
    private prefetch: RoomPrefetch | null = null,
    private readonly send: ProgressSender = defaultSender(fetcher),
  ) {}

  /** The prefetched answer for this room and token, used once; later calls go to the network. */
  private takeInfo(roomId: string, token: string): Promise<Response | null> | null {
    const p = this.prefetch;
    if (!p || p.roomId !== roomId || p.token !== token) return null;
    const info = p.info;
    this.prefetch = { ...p, info: Promise.resolve(null) };
    return info;
  }

  private async json<T>(path: string, init: RequestInit, token?: string): Promise<T> {
    const headers = new Headers(init.headers);
    if (token) headers.set('Authorization', `Bearer ${token}`);
    const res = await this.fetcher(`${this.base}${path}`, { ...init, headers });
    if (!res.ok) throw await failure(res);
    return (await res.json()) as T;
  }

  /** Who may create rooms on this server. */
  config(): Promise<ServerConfig> {
    return this.json('/api/config', {});
  }

  /** Creates a room, with an invitation where the server needs one; the caller becomes its owner. */
  createRoom(title: string, invitation?: string): Promise<CreatedRoom> {
    return this.json('/api/rooms', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ title }) }, invitation);
  }

  /** The room as seen with `token`, including the role that token grants. */
  async room(roomId: string, token: string): Promise<RoomInfo> {
    const early = await this.takeInfo(roomId, token);
    if (early?.ok) return (await early.json()) as RoomInfo;
    return this.json(`/api/rooms/${encodeURIComponent(roomId)}`, {}, token);
  }

  /** POSTs `body` with its progress reported (see `SendOptions`) and reads the JSON answer. */
  private async post<T>(path: string, token: string, body: XMLHttpRequestBodyInit, contentType: string | null, opts: SendOptions): Promise<T> {
    const headers = new Headers({ Authorization: `Bearer ${token}` });
    // A FormData body sets its own multipart type, boundary included.
    if (contentType) headers.set('Content-Type', contentType);
    const res = await this.send({ method: 'POST', url: `${this.base}${path}`, headers, body, ...opts });
    if (!res.ok) throw await failure(res);
    return (await res.json()) as T;
  }

  /** Uploads a dump as text. */
  upload(roomId: string, token: string, title: string, text: string, opts: SendOptions = {}): Promise<Pick<DocumentMeta, 'id' | 'kind' | 'bytes' | 'sha256'>> {
    return this.post(`/api/rooms/${encodeURIComponent(roomId)}/documents`, token, JSON.stringify({ title, text }), 'application/json', opts);
  }

  /** Uploads a trace as the raw body of the trace route, streamed from the blob (gzipped or not, JSON or XSpace). */
  uploadTrace(roomId: string, token: string, title: string, body: Blob, contentType: string, opts: SendOptions = {}): Promise<Pick<DocumentMeta, 'id' | 'kind' | 'bytes' | 'sha256'>> {
    return this.post(`/api/rooms/${encodeURIComponent(roomId)}/documents?title=${encodeURIComponent(title)}`, token, body, contentType, opts);
  }

  /** Imports a folder's files as one multipart body, one part per file named by its relative path; the server groups them into modules. */
  async importFiles(roomId: string, token: string, files: readonly FolderFile[], opts: SendOptions = {}): Promise<ImportResult> {
    const form = new FormData();
    for (const f of files) form.append('file', f.file, f.path);
    return importAnswer(await this.post(`/api/rooms/${encodeURIComponent(roomId)}/imports`, token, form, null, opts));
  }

  /** Imports an archive (`application/zip`, or `application/gzip` for `.tar.gz`) sent whole as the body. */
  async importArchive(roomId: string, token: string, archive: Blob, contentType: string, opts: SendOptions = {}): Promise<ImportResult> {
    return importAnswer(await this.post(`/api/rooms/${encodeURIComponent(roomId)}/imports`, token, archive, contentType, opts));
  }

  /** The room's export as the server builds it (`GET …/export.md` or `…/export.json`, gates included): one implementation for every reader. */
  async exportText(roomId: string, token: string, format: 'md' | 'json'): Promise<string> {
    const res = await this.fetcher(`${this.base}/api/rooms/${encodeURIComponent(roomId)}/export.${format}`, { headers: { Authorization: `Bearer ${token}` } });
    if (!res.ok) throw await failure(res);
    return res.text();
  }

  /** The id of the document opened first, as `index.html` learnt it at navigation start for this room and token; null when unknown. */
  firstDocument(roomId: string, token: string): Promise<string | null> {
    const p = this.prefetch;
    return p?.first && p.roomId === roomId && p.token === token ? p.first : Promise.resolve(null);
  }

  /** A dump's text (immutable, cached by the browser). */
  async text(roomId: string, token: string, docId: string): Promise<string> {
    const p = this.prefetch;
    if (p && p.roomId === roomId && p.token === token) {
      const early = await p.text;
      if (early && early.docId === docId) return early.text;
    }
    const res = await this.fetcher(`${this.base}/api/rooms/${encodeURIComponent(roomId)}/documents/${encodeURIComponent(docId)}/text`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    if (!res.ok) throw await failure(res);
    return res.text();
  }

  /** Rotates the link of `role`, returning the new token; old sockets are closed by the server. */
  async rotate(roomId: string, token: string, role: Role): Promise<string> {
    const body = await this.json<{ token?: string; tokens?: Record<string, string> }>(
      `/api/rooms/${encodeURIComponent(roomId)}/links/${role}/rotate`,
      { method: 'POST' },
      token,
    );
    const t = body.token ?? body.tokens?.[role];
    if (!t) throw new ApiError(500, 'bad-response', 'the server did not return the new token');
    return t;
  }
}
