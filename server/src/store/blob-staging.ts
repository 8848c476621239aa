import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type ReadStream, createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Limits } from '../config';
import { ApiError, ErrorCode } from '../errors';

/** A sha256 in lowercase hex: the only names staged files have. */
const SHA256 = /^[0-9a-f]{64}$/;
/** Room ids as the server mints them; anything else never reaches the file system. */
const ROOM_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** How often, at most, expired blobs are looked for. */
const SWEEP_MS = 60_000;

/** A staged file: its content hash and size. */
export interface StagedBlob {
  readonly sha256: string;
  readonly bytes: number;
}

/** How much a `put` may take: bytes for this blob, and the message that names the limit passed. */
export interface PutBound {
  readonly maxBytes: number;
  readonly tooLarge: string;
}

/**
 * Files staged for an import, by content: `PUT /api/rooms/:id/blobs/:sha256` (and each member of
 * an uploaded archive) streams a file here, hashed as it is written, so that an import can then
 * commit many files at once, and a push that broke off resumes with the files not staged yet.
 * One folder per room under `dir`; at most `stagedBytes` per room; a blob no import used is
 * removed `stagedSeconds` after it was last staged. Not a store of record: an import copies what
 * it keeps into the documents' blobs.
 */
export class BlobStaging {
  /** Bytes staged per room, as far as this process has counted (read from disk at first use). */
  private readonly used = new Map<string, number>();
  private lastSweep = 0;

  constructor(
    private readonly dir: string,
    private readonly limits: Pick<Limits, 'stagedBytes' | 'stagedSeconds'>,
    private readonly now: () => number = Date.now,
  ) {}

  private roomDir(roomId: string): string {
    if (!ROOM_ID.test(roomId)) throw new ApiError(ErrorCode.badRequest, 'not a room id');
    return join(this.dir, roomId);
  }

  /** The file of a staged blob (whether or not it exists). */
  pathOf(roomId: string, sha256: string): string {
    if (!SHA256.test(sha256)) throw new ApiError(ErrorCode.badRequest, 'a blob is named by its sha256 in lowercase hex');
    return join(this.roomDir(roomId), sha256);
  }

  /** The staged blob's size, or undefined when it is not staged (or has expired). */
  async size(roomId: string, sha256: string): Promise<number | undefined> {
    try {
      const s = await stat(this.pathOf(roomId, sha256));
      return s.mtimeMs + this.limits.stagedSeconds * 1000 < this.now() ? undefined : s.size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Reads a staged blob. */
  open(roomId: string, sha256: string): ReadStream {
    return createReadStream(this.pathOf(roomId, sha256), { highWaterMark: 1024 * 1024 });
  }

  private async usage(roomId: string): Promise<number> {
    const known = this.used.get(roomId);
    if (known !== undefined) return known;
    let total = 0;
    const dir = this.roomDir(roomId);
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (SHA256.test(name)) total += (await stat(join(dir, name)).catch(() => ({ size: 0 }))).size;
    }
    this.used.set(roomId, total);
    return total;
  }

  /**
   * Stages `body`: streamed to a temporary file and hashed as it is written, then named by its
   * sha256 (the same content staged twice is one file, its expiry renewed). `expected`, when given,
   * must be that sha256 (else 400 and nothing is kept). Past `bound.maxBytes`, or past the room's
   * `stagedBytes`, the write stops at once with 413 `too_large`, keeping nothing.
   */
  async put(roomId: string, body: AsyncIterable<Uint8Array>, bound: PutBound, expected?: string): Promise<StagedBlob> {
    if (expected !== undefined) this.pathOf(roomId, expected);
    const dir = this.roomDir(roomId);
    await mkdir(dir, { recursive: true });
    await this.sweep();
    const room = this.limits.stagedBytes - (await this.usage(roomId));
    const tmp = join(dir, `tmp-${randomBytes(8).toString('hex')}`);
    const out = createWriteStream(tmp);
    const hash = createHash('sha256');
    let bytes = 0;
    try {
      for await (const chunk of body) {
        bytes += chunk.length;
        if (bytes > bound.maxBytes) throw new ApiError(ErrorCode.tooLarge, bound.tooLarge);
        if (bytes > room) throw new ApiError(ErrorCode.tooLarge, `this room may stage at most ${this.limits.stagedBytes} bytes at once (SEAM_STAGED_BYTES)`);
        hash.update(chunk);
        if (!out.write(chunk)) await once(out, 'drain');
      }
      out.end();
      await finished(out);
    } catch (err) {
      // The file is opened asynchronously: wait for the stream to close, or the open could create it after the rm.
      out.destroy();
      await finished(out).catch(() => undefined);
      await rm(tmp, { force: true });
      throw err;
    }
    const sha256 = hash.digest('hex');
    if (expected !== undefined && sha256 !== expected) {
      await rm(tmp, { force: true });
      throw new ApiError(ErrorCode.badRequest, `the body's sha256 is ${sha256}, not ${expected}: it was changed or cut short on the way`);
    }
    const final = join(dir, sha256);
    const before = await this.size(roomId, sha256);
    await rename(tmp, final);
    const t = new Date(this.now());
    await utimes(final, t, t);
    if (before === undefined) this.used.set(roomId, (await this.usage(roomId)) + bytes);
    return { sha256, bytes };
  }

  /** Removes staged blobs (after an import used them, or when an upload failed). */
  async remove(roomId: string, sha256s: Iterable<string>): Promise<void> {
    for (const sha of new Set(sha256s)) {
      const size = await this.size(roomId, sha);
      await rm(this.pathOf(roomId, sha), { force: true });
      if (size !== undefined) this.used.set(roomId, Math.max(0, (await this.usage(roomId)) - size));
    }
  }

  /** Removes expired blobs and stray temporary files of every room, at most once a minute. */
  async sweep(): Promise<void> {
    const now = this.now();
    if (now - this.lastSweep < SWEEP_MS) return;
    this.lastSweep = now;
    const cutoff = now - this.limits.stagedSeconds * 1000;
    for (const room of await readdir(this.dir).catch(() => [] as string[])) {
      if (!ROOM_ID.test(room)) continue;
      for (const name of await readdir(join(this.dir, room)).catch(() => [] as string[])) {
        const file = join(this.dir, room, name);
        const s = await stat(file).catch(() => undefined);
        if (s && s.mtimeMs < cutoff) await rm(file, { force: true });
      }
      this.used.delete(room);
    }
  }
}
