import { createReadStream } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { ImportResult, type ImportFile } from '@seam/shared/model';
import type { RoomLink } from './room-link';

/** The server refused a request: its error code and message (the API's `{error:{code,message}}`). */
export class PushRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The connection to the server failed or dropped (refused, reset, timed out). */
export class PushDropped extends Error {}

/** The import API of one room, as `seam push` calls it with the link's token. */
export class PushClient {
  constructor(private readonly link: RoomLink) {}

  private async call(method: string, path: string, init: { body?: RequestInit['body']; type?: string } = {}): Promise<Response> {
    try {
      return await fetch(`${this.link.origin}/api/rooms/${this.link.roomId}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.link.token}`, ...(init.type ? { 'content-type': init.type } : {}) },
        ...(init.body !== undefined ? { body: init.body, duplex: 'half' } : {}),
      } as RequestInit);
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new PushDropped(cause?.code ?? cause?.message ?? (err as Error).message);
    }
  }

  private static async refused(res: Response): Promise<PushRefused> {
    const body = (await res.json().catch(() => undefined)) as { error?: { code?: string; message?: string } } | undefined;
    return new PushRefused(res.status, body?.error?.code ?? String(res.status), body?.error?.message ?? res.statusText);
  }

  /** Whether the server has this content for the room already (staged, or in one of its documents). A GET, not a HEAD, so a refusal says why. */
  async has(sha256: string): Promise<boolean> {
    const res = await this.call('GET', `/blobs/${sha256}`);
    if (res.status === 200 || res.status === 404) {
      await res.body?.cancel();
      return res.status === 200;
    }
    throw await PushClient.refused(res);
  }

  /** Stages a file's bytes under its sha256 (the server checks the hash). */
  async stage(file: string, sha256: string): Promise<void> {
    const body = Readable.toWeb(createReadStream(file, { highWaterMark: 1024 * 1024 })) as ReadableStream<Uint8Array>;
    const res = await this.call('PUT', `/blobs/${sha256}`, { body, type: 'application/octet-stream' });
    if (res.status !== 201) throw await PushClient.refused(res);
    await res.body?.cancel();
  }

  /**
   * Commits the staged files as one import. The server answers once every file is indexed and
   * listed, which for a large folder takes minutes: this request is made with node:http, which
   * waits for the answer as long as the connection lives (fetch gives up on headers after 300 s).
   */
  async commit(files: readonly ImportFile[]): Promise<ImportResult> {
    const body = JSON.stringify({ files });
    const url = new URL(`${this.link.origin}/api/rooms/${this.link.roomId}/imports`);
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.link.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', (err) => reject(new PushDropped(err.message)));
      });
      req.on('error', (err: NodeJS.ErrnoException) => reject(new PushDropped(err.code ?? err.message)));
      req.end(body);
    });
    const json = (() => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return undefined;
      }
    })();
    if (status !== 200 && status !== 201) {
      const error = (json as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new PushRefused(status, error?.code ?? String(status), error?.message ?? text.slice(0, 200));
    }
    return ImportResult.parse(json);
  }
}
