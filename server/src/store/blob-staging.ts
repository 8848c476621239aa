import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type ReadStream, createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { ApiError, ErrorCode } from '../errors';
import {
  STAGED_ROOM_ID as ROOM_ID, STAGED_SHA256 as SHA256, checkStagedName, overStagingQuota, wrongStagedSha,
  type PutBound, type StagedBlob, type StagedBlobs, type StagingLimits,
} from './staged-blobs';

/** How often, at most, expired blobs are looked for. */
const SWEEP_MS = 60_000;

/**
 * Staged blobs as files (embedded mode, `StagedBlobs`): one folder per room under `dir`, one file
 * per blob named by its sha256, its modification time the last time it was staged.
 */
export class BlobStaging implements StagedBlobs {
  /** Bytes staged per room, as far as this process has counted (read from disk at first use). */
  private readonly used = new Map<string, number>();
  private lastSweep = 0;

  constructor(
    private readonly dir: string,
    private readonly limits: StagingLimits,
    private readonly now: () => number = Date.now,
  ) {}

  private roomDir(roomId: string): string {
    checkStagedName(roomId);
    return join(this.dir, roomId);
  }

  /** The file of a staged blob (whether or not it exists). */
  pathOf(roomId: string, sha256: string): string {
    checkStagedName(roomId, sha256);
    return join(this.roomDir(roomId), sha256);
  }

  async size(roomId: string, sha256: string): Promise<number | undefined> {
    try {
      const s = await stat(this.pathOf(roomId, sha256));
      return s.mtimeMs + this.limits.stagedSeconds * 1000 < this.now() ? undefined : s.size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  read(roomId: string, sha256: string): ReadStream {
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

  /** Streams `body` to a temporary file, then renames it to its sha256 (`StagedBlobs.put`). */
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
        if (bytes > room) throw overStagingQuota(this.limits);
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
      throw wrongStagedSha(sha256, expected);
    }
    const final = join(dir, sha256);
    const before = await this.size(roomId, sha256);
    await rename(tmp, final);
    const t = new Date(this.now());
    await utimes(final, t, t);
    if (before === undefined) this.used.set(roomId, (await this.usage(roomId)) + bytes);
    return { sha256, bytes };
  }

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
