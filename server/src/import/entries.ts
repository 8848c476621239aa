import { importPathProblem, normalizeImportPath } from '@seam/shared/import';
import type { ImportFile } from '@seam/shared/model';
import type { Limits } from '../config';
import { ApiError, ErrorCode } from '../errors';
import type { StagedBlobs } from '../store/staged-blobs';

/** One member of a folder or archive as it streams in: its path, what it is, and (for a file) its bytes. */
export interface ImportEntry {
  readonly path: string;
  /** `link` is a symbolic or hard link, `other` a device, FIFO or anything not a file or folder. */
  readonly type: 'file' | 'directory' | 'link' | 'other';
  readonly body: AsyncIterable<Uint8Array>;
}

/** The archive formats an import body may be. */
export const ArchiveFormat = { multipart: 'multipart', zip: 'zip', tar: 'tar', tarGz: 'tar.gz' } as const;
export type ArchiveFormat = (typeof ArchiveFormat)[keyof typeof ArchiveFormat];

export const badArchive = (m: string) => new ApiError(ErrorCode.badArchive, m);
export const unsafePath = (m: string) => new ApiError(ErrorCode.unsafePath, m);

/** Drains what is left of a body nobody reads, so that the archive reader moves on. */
async function drain(body: AsyncIterable<Uint8Array>): Promise<void> {
  for await (const chunk of body) void chunk;
}

/**
 * Stages every file of `entries` (folders are passed over) into `staging` for `roomId`, in order,
 * one at a time as the archive streams: each member's path is checked (`unsafe_path` for `..`,
 * absolute paths, drive letters, NUL, and for links and devices), counted (`too_many_files` past
 * `importFiles`) and its bytes bounded while they inflate (`too_large` past `importFileBytes`, or
 * past `importBytes` for the import in all), never trusting what headers claim. A path twice is
 * `bad_archive`. On any error the blobs this call staged are removed and nothing else changes.
 * Returns the manifest of the staged files.
 */
export async function stageEntries(staging: StagedBlobs, roomId: string, entries: AsyncIterable<ImportEntry>, limits: Pick<Limits, 'importFiles' | 'importBytes' | 'importFileBytes'>): Promise<ImportFile[]> {
  const files: ImportFile[] = [];
  const seen = new Set<string>();
  const fresh: string[] = [];
  let total = 0;
  try {
    for await (const entry of entries) {
      // A folder entry keeps nothing (`./`, which `tar -C dir .` writes first, among them): only files' paths are checked.
      if (entry.type === 'directory') {
        await drain(entry.body);
        continue;
      }
      const problem = importPathProblem(entry.path);
      if (problem) throw unsafePath(`${JSON.stringify(entry.path.slice(0, 200))}: ${problem}`);
      const path = normalizeImportPath(entry.path);
      if (entry.type === 'link') throw unsafePath(`${path} is a link; an import takes files and folders only`);
      if (entry.type === 'other') throw unsafePath(`${path} is a device or special file; an import takes files and folders only`);
      if (files.length >= limits.importFiles) throw new ApiError(ErrorCode.tooManyFiles, `an import may hold at most ${limits.importFiles} files (SEAM_IMPORT_FILES)`);
      if (seen.has(path)) throw badArchive(`${path} is in the import twice`);
      seen.add(path);
      const left = limits.importBytes - total;
      const bound = left < limits.importFileBytes
        ? { maxBytes: left, tooLarge: `an import may hold at most ${limits.importBytes} bytes uncompressed (SEAM_IMPORT_BYTES); it passed that at ${path}` }
        : { maxBytes: limits.importFileBytes, tooLarge: `${path} is larger than ${limits.importFileBytes} bytes uncompressed (SEAM_IMPORT_FILE_BYTES)` };
      const staged = await staging.put(roomId, entry.body, bound);
      fresh.push(staged.sha256);
      total += staged.bytes;
      files.push({ path, sha256: staged.sha256, bytes: staged.bytes });
    }
  } catch (err) {
    await staging.remove(roomId, fresh);
    throw err;
  }
  return files;
}
