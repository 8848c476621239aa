import { Readable } from 'node:stream';
import { importPathProblem, normalizeImportPath, planImport, type FilePlan } from '@seam/shared/import';
import { MAX_TITLE, RoomKey, layerGroups, type DocumentMeta, type ImportFile, type ImportResult } from '@seam/shared/model';
import { gunzipAsync } from '../gunzip';
import { prepareDocument, type IngestDeps } from '../ingest';
import { ApiError, ErrorCode } from '../errors';
import { checkDocumentQuota } from '../room-quotas';
import type { DocumentUsage } from '../store/documents-store';
import type { StagedBlobs } from '../store/staged-blobs';
import { ingestTrace } from '../trace/ingest-trace';

/** What an import needs: the ingest's parts and the staged blobs; `scaled` is set in scaled mode. */
export interface ImportDeps extends IngestDeps {
  readonly staging: StagedBlobs;
  readonly scaled?: object;
}

/** Reads a body whole (a text dump, bounded by `documentBytes`). */
async function readAll(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const pieces: Uint8Array[] = [];
  for await (const piece of body) pieces.push(piece);
  return Buffer.concat(pieces);
}

/** A document's title from its path: the path, or its last `MAX_TITLE` characters. */
const titleOf = (path: string): string => (path.length <= MAX_TITLE ? path : `…${path.slice(-(MAX_TITLE - 1))}`);

/** Waits between retries when the analyzer's queue is full. */
const BUSY_RETRY_MS = [50, 200, 500, 1000, 2000, 4000];

/** Runs `task` for every item, at most `limit` at once, in order of start; the first error stops new starts and is thrown. */
async function eachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: unknown;
  const worker = async () => {
    while (failed === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        await task(item);
      } catch (err) {
        failed ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failed !== undefined) throw failed;
}

/** `text` when the bytes are UTF-8 text, or the reason they are not (a NUL, or bytes that are not UTF-8). */
function textOf(bytes: Uint8Array): { text: string } | { reason: string } {
  if (bytes.subarray(0, 64 * 1024).includes(0)) return { reason: 'a binary file (it holds NUL bytes), not a text dump' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { reason: 'not UTF-8 text' };
  }
}

/**
 * Commits an import of `files` (paths with the sha256 and size of bytes staged for them, or held
 * by the room already) into room `roomId`, all or nothing:
 * - the manifest is checked first (paths safe and unique, `importFiles`, `importBytes`,
 *   `importFileBytes`, every blob there: else `unsafe_path`, `too_many_files`, `too_large`,
 *   `missing_blob`), and the room's document quota for everything it would add;
 * - the files are planned by name (`planImport`: module groups, pass dumps, skipped binaries);
 *   a file the room holds already (same path, same bytes; for a gzipped trace, the same file) is counted `unchanged` and not added
 *   again; a text is indexed and its blob stored as it goes (content-addressed, so a failed
 *   import leaves blobs no document refers to); a trace goes through the trace ingest;
 * - then every new document is listed in one transaction (the quota checked again just before
 *   it, and in embedded mode inside it) and announced in the room in one Yjs transaction. When anything fails, the traces this import
 *   stored are taken out again and nothing else is listed.
 * The staged blobs it used are removed after it succeeds.
 */
export async function commitImport(deps: ImportDeps, roomId: string, input: readonly ImportFile[]): Promise<ImportResult> {
  const limits = deps.config.limits;
  if (input.length > limits.importFiles) throw new ApiError(ErrorCode.tooManyFiles, `an import may hold at most ${limits.importFiles} files (SEAM_IMPORT_FILES)`);
  const files: ImportFile[] = [];
  const seen = new Set<string>();
  let total = 0;
  for (const f of input) {
    const problem = importPathProblem(f.path);
    if (problem) throw new ApiError(ErrorCode.unsafePath, `${JSON.stringify(f.path.slice(0, 200))}: ${problem}`);
    const path = normalizeImportPath(f.path);
    if (seen.has(path)) throw new ApiError(ErrorCode.badRequest, `${path} is in the manifest twice`);
    seen.add(path);
    if (f.bytes > limits.importFileBytes) throw new ApiError(ErrorCode.tooLarge, `${path} is larger than ${limits.importFileBytes} bytes (SEAM_IMPORT_FILE_BYTES)`);
    total += f.bytes;
    if (total > limits.importBytes) throw new ApiError(ErrorCode.tooLarge, `an import may hold at most ${limits.importBytes} bytes (SEAM_IMPORT_BYTES)`);
    files.push({ ...f, path });
  }
  // Where each content's bytes are: staged for this import (true), or in a document the room holds (false).
  const staged = new Map<string, boolean>();
  const missing: string[] = [];
  for (const f of files) {
    if (staged.has(f.sha256)) continue;
    const size = await deps.staging.size(roomId, f.sha256);
    if (size === f.bytes) staged.set(f.sha256, true);
    else if (await deps.content.documents.roomHasBlob(roomId, f.sha256)) staged.set(f.sha256, false);
    else missing.push(f.path);
  }
  if (missing.length > 0) {
    throw new ApiError(ErrorCode.missingBlob, `${missing.length} files are neither staged nor in the room (stage them with PUT …/blobs/:sha256 first): ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}`);
  }

  const byPath = new Map(files.map((f) => [f.path, f]));
  const plans = planImport(files.map((f) => f.path), await deps.content.documents.moduleRefs(roomId));
  const skipped: { path: string; reason: string }[] = [];
  const texts: Extract<FilePlan, { what: 'document' }>[] = [];
  const traces: string[] = [];
  let unchanged = 0;
  for (const p of plans) {
    const f = byPath.get(p.path)!;
    if (p.what === 'skip') skipped.push({ path: p.path, reason: p.reason });
    else if (await deps.content.documents.hasFile(roomId, p.path, f.sha256)) unchanged++;
    else if (p.what === 'trace') traces.push(p.path);
    else texts.push(p);
  }
  const adding = texts.length + traces.length;
  const newBytes = [...texts.map((p) => p.path), ...traces].reduce((n, path) => n + byPath.get(path)!.bytes, 0);
  // Checked before anything is read, and again inside the transaction that lists the documents (in
  // PostgreSQL with the room's row locked), so two imports at once, through one instance or two,
  // cannot both pass.
  const checkQuota = (used: DocumentUsage) => {
    if (used.documents + adding > limits.documentsPerRoom) {
      throw new ApiError(ErrorCode.quotaExceeded, `this import adds ${adding} documents to a room holding ${used.documents} of its ${limits.documentsPerRoom} (SEAM_DOCUMENTS_PER_ROOM)`);
    }
    checkDocumentQuota(used, limits, newBytes);
  };
  const assertQuota = async () => checkQuota(await deps.content.documents.usage(roomId));
  if (adding > 0) await assertQuota();

  const bytesOf = async (sha256: string): Promise<Buffer> => {
    if (staged.get(sha256)) return readAll(deps.staging.read(roomId, sha256));
    const gz = await deps.content.documents.textGzip(sha256);
    if (!gz) throw new ApiError(ErrorCode.missingBlob, `${sha256} is no longer stored`);
    return gunzipAsync(gz);
  };
  const metas: DocumentMeta[] = [];
  // A file is told unchanged by its path; one outside a module group keeps it beside its metadata.
  const pathOf = new Map<string, string>();
  const traceMetas: DocumentMeta[] = [];
  const undo = async () => {
    for (const m of traceMetas) await deps.content.documents.remove(roomId, m.id);
    if (traceMetas.length > 0) await (await deps.rooms.load(roomId)).transact((doc) => { for (const m of traceMetas) doc.getMap(RoomKey.documents).delete(m.id); });
  };
  try {
    await eachLimited(texts, limits.analyzerWorkers, async (p) => {
      const f = byPath.get(p.path)!;
      if (f.bytes > limits.documentBytes) throw new ApiError(ErrorCode.tooLarge, `${p.path} has ${f.bytes} bytes; a dump may be at most ${limits.documentBytes} (SEAM_DOCUMENT_BYTES)`);
      const content = textOf(await bytesOf(f.sha256));
      if ('reason' in content) {
        skipped.push({ path: p.path, reason: content.reason });
        return;
      }
      const extra = { ...(p.kind !== undefined ? { kind: p.kind } : {}), ...(p.module ? { module: p.module } : {}) };
      for (let attempt = 0; ; attempt++) {
        try {
          const { meta, blob, trace } = await prepareDocument(deps, roomId, titleOf(p.path), content.text, extra);
          pathOf.set(meta.id, p.path);
          if (blob) await deps.content.documents.putBlob(meta.sha256, meta.bytes, blob);
          if (trace) await deps.content.traces.put(meta.sha256, trace);
          metas.push(meta);
          return;
        } catch (err) {
          const wait = BUSY_RETRY_MS[attempt];
          if (!(err instanceof ApiError && err.code === ErrorCode.busy) || wait === undefined) throw err;
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    });
    for (const path of traces) {
      const f = byPath.get(path)!;
      const body = staged.get(f.sha256) ? deps.staging.read(roomId, f.sha256) : Readable.from([await bytesOf(f.sha256)]);
      const meta = await ingestTrace(deps, roomId, titleOf(path), body);
      traceMetas.push(meta);
      // A gzipped trace is stored as its text: the file's own sha256 tells the same file imported again.
      await deps.content.documents.setPath(roomId, meta.id, path, meta.sha256 === f.sha256 ? undefined : f.sha256);
    }
    if (metas.length > 0) await assertQuota();
    await deps.content.documents.addAll(roomId, metas.map((meta) => ({ meta, path: pathOf.get(meta.id) })), (used) => { if (metas.length > 0) checkQuota(used); });
    if (metas.length > 0) await (await deps.rooms.load(roomId)).transact((doc) => { for (const m of metas) doc.getMap(RoomKey.documents).set(m.id, { ...m }); });
  } catch (err) {
    await undo();
    throw err;
  }
  await deps.staging.remove(roomId, files.filter((f) => staged.get(f.sha256)).map((f) => f.sha256));
  const documents = [...metas, ...traceMetas];
  const groups = layerGroups(documents).map((g) => ({ key: g.key, label: g.label, documentIds: g.docs.map((d) => d.id) }));
  deps.log.info({ room: roomId, files: files.length, added: documents.length, unchanged, skipped: skipped.length }, 'import committed');
  return { documents, groups, skipped, added: documents.length, unchanged };
}
