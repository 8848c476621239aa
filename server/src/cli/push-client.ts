import { createReadStream } from 'node:fs';
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

  /** Commits the staged files as one import. */
  async commit(files: readonly ImportFile[]): Promise<ImportResult> {
    const res = await this.call('POST', '/imports', { body: JSON.stringify({ files }), type: 'application/json' });
    if (res.status !== 200 && res.status !== 201) throw await PushClient.refused(res);
    return ImportResult.parse(await res.json());
  }
}
