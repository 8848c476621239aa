import { mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ByteSpool } from '@seam/shared/trace';

/**
 * A spool in a file, by its descriptor: what an XSpace reducer reads a plane back from, so that a
 * trace of any size is held on disk, not in memory. Released bytes stay in the file until it is
 * closed (it is read front to back, once or twice a plane).
 */
export class FileSpool implements ByteSpool {
  private end = 0;

  constructor(private readonly fd: number) {}

  append(bytes: Uint8Array): void {
    for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done, this.end + done);
    this.end += bytes.length;
  }

  read(offset: number, into: Uint8Array): void {
    for (let got = 0; got < into.length;) {
      const n = readSync(this.fd, into, got, into.length - got, offset + got);
      if (n === 0) throw new RangeError(`the spool file ends before byte ${offset + into.length}`);
      got += n;
    }
  }

  release(): void {}
}

/**
 * Opens a new, empty file for a spool in the system's temporary folder (`TMPDIR`) and removes its
 * name at once, so that it disappears when its descriptor is closed, whatever happens to its reader.
 * Returns the descriptor; the caller closes it.
 */
export function openSpoolFile(): number {
  const dir = mkdtempSync(join(tmpdir(), 'seam-trace-'));
  try {
    return openSync(join(dir, 'spool'), 'w+', 0o600);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
