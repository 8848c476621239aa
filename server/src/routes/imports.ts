import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Hono, type Context } from 'hono';
import { ImportManifest, type ImportFile } from '@seam/shared/model';
import type { AppDeps } from '../app';
import { authorize } from '../auth/require';
import { badRequest, issuesMessage, notFound } from '../errors';
import { commitImport } from '../import/commit';
import { ArchiveFormat, stageEntries, type ImportEntry } from '../import/entries';
import { multipartEntries } from '../import/multipart-entries';
import { sniffArchive } from '../import/sniff';
import { tarEntries } from '../import/tar-entries';
import { zipEntries } from '../import/zip-entries';
import { assertUnlocked } from '../room-lock';
import { BlobStaging } from '../store/blob-staging';
import { checkStagedName } from '../store/staged-blobs';
import { limitBody, readJson } from './validate';

const WRITERS = ['owner', 'annotator'] as const;

/** Content types of an archive body, by format. */
const ZIP_TYPES = ['application/zip', 'application/x-zip-compressed'];
const TAR_TYPES = ['application/x-tar', 'application/tar'];
const TAR_GZ_TYPES = ['application/gzip', 'application/x-gzip', 'application/x-tgz', 'application/x-compressed-tar'];

/**
 * Reads what is left of a refused body (up to `maxBytes`) and drops it, so that the refusal
 * reaches the client on a connection it can keep using; past that the connection is cut.
 */
async function dropRest(body: Readable, maxBytes: number): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of body) {
      read += (chunk as Uint8Array).length;
      if (read > maxBytes) {
        body.destroy();
        return;
      }
    }
  } catch {
    // The client went away or the body broke: there is nothing left to drop.
  }
}

/**
 * The import API, editors only (owner and annotator; a locked room takes its owner's only):
 * - `HEAD` (or `GET`) `/api/rooms/:id/blobs/:sha256`: 200 when that content is staged for the room
 *   or held by one of its documents (so a push need not send it; `GET` says which), else 404;
 * - `PUT /api/rooms/:id/blobs/:sha256`: stages the raw body, verified against its sha256 (201);
 * - `POST /api/rooms/:id/imports`: a JSON `ImportManifest` of staged files, a `multipart/form-data`
 *   folder (one part per file, its filename the relative path), or an archive body (`.zip`,
 *   `.tar`, `.tar.gz`; as `application/octet-stream` told by its first bytes): every file staged
 *   as it streams, then committed at once. Answers an
 *   `ImportResult` (201 when it added documents, 200 when the room held them all already).
 */
export function importRoutes(deps: AppDeps): Hono {
  const { config } = deps;
  const staging = deps.staging ?? new BlobStaging(join(config.dataDir, 'staging'), config.limits);
  const importDeps = { ...deps, staging };
  const app = new Hono();
  const editor = async (c: Context) => {
    const roomId = c.req.param('id') ?? '';
    const { role } = await authorize(c, deps, roomId, WRITERS);
    // Whether the room is locked is in its document, which another instance may hold: load it here.
    await deps.rooms.load(roomId);
    assertUnlocked(deps.rooms, roomId, role);
    return roomId;
  };

  // HEAD is answered by this GET route, without its body.
  app.get('/:id/blobs/:sha256', async (c) => {
    const roomId = await editor(c);
    const sha = c.req.param('sha256');
    const size = await staging.size(roomId, sha);
    if (size !== undefined) return c.json({ sha256: sha, bytes: size, where: 'staged' });
    if (await deps.content.documents.roomHasBlob(roomId, sha)) return c.json({ sha256: sha, where: 'document' });
    throw notFound('no such blob staged');
  });

  app.put('/:id/blobs/:sha256', async (c) => {
    const roomId = await editor(c);
    const sha = c.req.param('sha256');
    checkStagedName(roomId, sha);
    const body = c.req.raw.body ?? Readable.from([]);
    const max = config.limits.importFileBytes;
    const staged = await staging.put(roomId, body as AsyncIterable<Uint8Array>, { maxBytes: max, tooLarge: `a staged file may be at most ${max} bytes (SEAM_IMPORT_FILE_BYTES)` }, sha);
    return c.json(staged, 201);
  });

  // A manifest names each file in a few hundred bytes at most.
  const manifestLimit = limitBody(Math.max(config.limits.requestBytes, config.limits.importFiles * 1200), 'the manifest is too large');
  app.post('/:id/imports', async (c, next) => {
    await editor(c);
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === 'application/json') return next();
    const roomId = c.req.param('id');
    const raw = c.req.raw.body;
    if (!raw) throw badRequest('the import is empty');
    const body = Readable.fromWeb(raw as import('node:stream/web').ReadableStream<Uint8Array>);
    const format = type === 'multipart/form-data' ? ArchiveFormat.multipart
      : ZIP_TYPES.includes(type) ? ArchiveFormat.zip
      : TAR_TYPES.includes(type) ? ArchiveFormat.tar
      : TAR_GZ_TYPES.includes(type) ? ArchiveFormat.tarGz
      : type === 'application/octet-stream' || type === '' ? await sniffArchive(body) : undefined;
    if (format === undefined) {
      await dropRest(body, config.limits.importBytes);
      throw badRequest('send a JSON manifest, multipart/form-data (one part per file), or a .zip, .tar or .tar.gz (application/zip, application/x-tar, application/gzip, or application/octet-stream read by its first bytes)');
    }
    const entries: AsyncIterable<ImportEntry> = format === ArchiveFormat.multipart ? multipartEntries(body, { 'content-type': c.req.header('content-type') ?? '' })
      : format === ArchiveFormat.zip ? zipEntries(body, join(config.dataDir, 'staging', '.tmp'), config.limits.importBytes)
      : tarEntries(body, format === ArchiveFormat.tarGz);
    let files;
    try {
      files = await stageEntries(staging, roomId, entries, config.limits);
    } catch (err) {
      await dropRest(body, config.limits.importBytes);
      throw err;
    }
    if (files.length === 0) throw badRequest('the import holds no files');
    try {
      const result = await commitImport(importDeps, roomId, files);
      return c.json(result, result.added > 0 ? 201 : 200);
    } catch (err) {
      // What this body staged is of no use to a later import: it would come in again whole.
      await staging.remove(roomId, files.map((f) => f.sha256));
      throw err;
    }
  }, manifestLimit, async (c) => {
    const parsed = ImportManifest.safeParse(await readJson(c, 'the manifest is not valid JSON'));
    if (!parsed.success) throw badRequest(issuesMessage(parsed.error));
    const result = await commitImport(importDeps, c.req.param('id'), parsed.data.files as ImportFile[]);
    return c.json(result, result.added > 0 ? 201 : 200);
  });

  return app;
}
