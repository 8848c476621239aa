import { planImport } from '@seam/shared/import';
import type { ImportFile, ImportResult } from '@seam/shared/model';
import { PushClient, PushDropped, PushRefused } from './push-client';
import { listFiles, sha256Of, type LocalFile, type LocalSkip } from './push-files';
import { PushProgress } from './push-progress';
import { parseRoomLink, RoomLinkError } from './room-link';
import { watchAndPush } from './push-watch';

/** Where `seam push` writes: result lines, error lines, and (on a terminal) one status line rewritten in place. */
export interface PushOutput {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly status?: (line: string) => void;
}

/** Files staged at once. */
const PARALLEL = 4;

/**
 * Pushes `files` into the room: each is hashed, asked for (`HEAD …/blobs/:sha256`), sent only when
 * the server lacks it (`PUT`), then all are committed as one import. A push that broke off
 * resumes where it stopped, as the server keeps what it staged; a file the room holds already
 * is not added again. Files the import would skip by name (binary protos, object files) are not
 * sent. Returns the import's result.
 */
export async function pushFiles(client: PushClient, files: readonly LocalFile[], localSkips: readonly LocalSkip[], io: PushOutput): Promise<ImportResult> {
  const plans = new Map(planImport(files.map((f) => f.path)).map((p) => [p.path, p]));
  const skipped: LocalSkip[] = [...localSkips];
  const sending: LocalFile[] = [];
  for (const f of files) {
    const p = plans.get(f.path);
    if (p?.what === 'skip') skipped.push({ path: f.path, reason: p.reason });
    else sending.push(f);
  }
  const total = sending.reduce((n, f) => n + f.bytes, 0);
  const progress = new PushProgress(sending.length, total, io.out, io.status);
  const manifest: ImportFile[] = new Array<ImportFile>(sending.length);
  let next = 0;
  let already = 0;
  const worker = async () => {
    while (next < sending.length) {
      const i = next++;
      const f = sending[i]!;
      const sha256 = await sha256Of(f.file);
      if (await client.has(sha256)) already++;
      else await client.stage(f.file, sha256);
      manifest[i] = { path: f.path, sha256, bytes: f.bytes };
      progress.done(f.bytes);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(PARALLEL, Math.max(1, sending.length)) }, worker));
  } finally {
    progress.finish();
  }
  if (already > 0) io.out(`${already} of ${sending.length} files were on the server already; not sent again`);
  if (manifest.length === 0) return { documents: [], groups: [], skipped, added: 0, unchanged: 0 };
  const result = await client.commit(manifest);
  return { ...result, skipped: [...skipped, ...result.skipped] };
}

/** Prints what an import did: added documents by group, unchanged files, skipped files by reason. */
export function report(result: ImportResult, io: Pick<PushOutput, 'out'>): void {
  if (result.added === 0 && result.unchanged > 0) io.out(`nothing new: the room holds all ${result.unchanged} files already`);
  else io.out(`added ${result.added} documents in ${result.groups.length} groups${result.unchanged > 0 ? `; ${result.unchanged} files unchanged` : ''}`);
  for (const g of result.groups) io.out(`  ${g.label}: ${g.documentIds.length} documents`);
  const byReason = new Map<string, string[]>();
  for (const s of result.skipped) byReason.set(s.reason, [...(byReason.get(s.reason) ?? []), s.path]);
  for (const [reason, paths] of byReason) {
    const shown = paths.length <= 3 ? paths.join(', ') : `${paths.slice(0, 2).join(', ')} and ${paths.length - 2} more`;
    io.out(`  skipped ${paths.length === 1 ? '1 file' : `${paths.length} files`}, ${reason}: ${shown}`);
  }
}

/**
 * `seam push ROOM_LINK PATH... [--watch] [--quiet SECONDS]`: pushes files and folders into a room
 * (see `pushFiles`); with `--watch`, keeps watching and pushes new or changed files once each has
 * been quiet (unchanged) for `--quiet` seconds (default 2). Returns the exit status: 0 when pushed,
 * 1 when the server refused or could not be reached (run it again to resume), 2 for a bad link.
 */
export async function runPush(linkText: string, paths: readonly string[], opts: { readonly watch: boolean; readonly quietSeconds: number }, io: PushOutput, stop?: AbortSignal): Promise<number> {
  let link;
  try {
    link = parseRoomLink(linkText);
  } catch (err) {
    if (!(err instanceof RoomLinkError)) throw err;
    io.err(`seam: ${err.message}`);
    return 2;
  }
  const client = new PushClient(link);
  try {
    const { files, skipped } = await listFiles(paths);
    io.out(`pushing ${files.length} files (${(files.reduce((n, f) => n + f.bytes, 0) / 1e6).toFixed(1)} MB) to ${link.shown}`);
    report(await pushFiles(client, files, skipped, io), io);
    if (opts.watch) await watchAndPush(paths, files, opts.quietSeconds * 1000, (batch) => pushFiles(client, batch, [], io).then((r) => report(r, io)), io, stop);
    return 0;
  } catch (err) {
    if (err instanceof PushRefused) {
      io.err(`seam: the server refused the push: ${err.code}: ${err.message}`);
      return 1;
    }
    if (err instanceof PushDropped) {
      io.err(`seam: the connection to ${link.shown} failed (${err.message}); run the same command again to resume: what was sent is kept on the server for a day`);
      return 1;
    }
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      io.err(`seam: ${(err as Error).message}`);
      return 1;
    }
    throw err;
  }
}
