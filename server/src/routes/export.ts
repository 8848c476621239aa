import { Hono, type Context } from 'hono';
import type { Analysis, OpTime } from '@seam/shared/ir';
import {
  buildExport, catalogueGroups, DocumentKind, exportCatalogue, exportDiff, exportMappings, exportToJson, exportToMarkdown, groupOf, inertCell, mappingGroups, MAX_EXPORT_DIFF_BYTES, readAnnotations,
  MAX_EXPORT_CATALOGUE_TEXT_BYTES, readCaptures, RoomKey, ROLES, versionPairs, type CaptureEntry, type DocumentMeta, type ExportedDiff, type ExportedMapping, type GateReport,
  type ExportedCatalogue, type GateUnavailable, type RoomExport,
} from '@seam/shared/model';
import type { OpAggregate } from '@seam/shared/trace';
import { opTimesOf } from '../cli/trace-op-times';
import type { AppDeps } from '../app';
import { authorize } from '../auth/require';
import { roomTitle } from '../room-title';
import { gunzipAsync } from '../gunzip';
import { captureGate, GateUnavailableError } from './gate';

/** A file name from a room title: letters, digits, dashes; `room` when nothing is left. */
function fileName(title: string): string {
  const base = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return base || 'room';
}

/** The gate of each capture group that holds a trace (default candidate and bar), or why it has none. */
async function gatesOf(deps: AppDeps, roomId: string, documents: readonly DocumentMeta[]): Promise<(GateReport | GateUnavailable)[]> {
  const { jobs } = deps;
  if (!jobs) return [];
  const traced = [...new Set(documents.filter((d) => d.kind === DocumentKind.trace && d.captureId !== undefined).map((d) => d.captureId!))];
  const groups = (await Promise.all(traced.map(async (id) => ((await jobs.queue.get(id))?.roomId === roomId ? [id] : [])))).flat();
  return Promise.all(groups.map(async (captureId) => {
    try {
      return await captureGate({ ...deps, jobs }, roomId, captureId);
    } catch (e) {
      if (e instanceof GateUnavailableError) return { captureId, reason: e.reason, message: e.message };
      throw e;
    }
  }));
}

/** A document's stored analysis, decompressed off the event loop; `undefined` when it has none. */
async function analysisOf(deps: AppDeps, d: DocumentMeta): Promise<Analysis | undefined> {
  const gz = await deps.content.documents.analysisGzip(d.sha256);
  return gz ? (JSON.parse((await gunzipAsync(gz)).toString('utf8')) as Analysis) : undefined;
}

/**
 * The mapping table of each capture or module group with three layers, made one group at a time
 * so that only that group's three analyses are held at once.
 */
async function mappingsOf(deps: AppDeps, documents: readonly DocumentMeta[]): Promise<ExportedMapping[]> {
  const out: ExportedMapping[] = [];
  for (const g of mappingGroups(documents)) {
    const layers = Object.values(g.layers);
    const analyses = new Map<string, Analysis>();
    for (const d of layers) {
      const a = await analysisOf(deps, d);
      if (a) analyses.set(d.id, a);
    }
    out.push(...exportMappings([g], (id) => analyses.get(id)));
  }
  return out;
}

/** The op rows of the trace in `d`'s group, when it holds a reduced one. */
async function groupOpTimes(deps: AppDeps, documents: readonly DocumentMeta[], d: DocumentMeta): Promise<OpTime[] | undefined> {
  let gz: Uint8Array | undefined;
  for (const x of groupOf(documents, d)) {
    if (x.kind !== DocumentKind.trace || !(await deps.content.traces.has(x.sha256))) continue;
    gz = await deps.content.traces.part(x.sha256, 'ops');
    break;
  }
  return gz ? opTimesOf(JSON.parse((await gunzipAsync(gz)).toString('utf8')) as OpAggregate[]) : undefined;
}

/**
 * The diff of each version pair (`versionPairs`), one pair at a time so that only two texts are
 * held at once; texts over `MAX_EXPORT_DIFF_BYTES` are not read (the entry says why).
 */
async function diffsOf(deps: AppDeps, documents: readonly DocumentMeta[], captures: readonly CaptureEntry[]): Promise<ExportedDiff[]> {
  const out: ExportedDiff[] = [];
  for (const p of versionPairs(documents, captures)) {
    const small = p.a.bytes <= MAX_EXPORT_DIFF_BYTES && p.b.bytes <= MAX_EXPORT_DIFF_BYTES;
    const texts = small ? new Map([[p.a.id, await deps.texts.get(p.a.sha256)], [p.b.id, await deps.texts.get(p.b.sha256)]]) : new Map<string, string | undefined>();
    const times = small ? new Map([[p.a.id, await groupOpTimes(deps, documents, p.a)], [p.b.id, await groupOpTimes(deps, documents, p.b)]]) : new Map<string, OpTime[] | undefined>();
    out.push(exportDiff(p, { textOf: (d) => texts.get(d.id), opTimesOf: (d) => times.get(d.id), escape: inertCell }));
  }
  return out;
}

/**
 * The card and catalogue of each group holding a program layer (`catalogueGroups`), one group at a
 * time so that only that group's analyses and texts are held at once; texts over
 * `MAX_EXPORT_CATALOGUE_TEXT_BYTES` are not read (the entry says so).
 */
async function cataloguesOf(deps: AppDeps, documents: readonly DocumentMeta[]): Promise<ExportedCatalogue[]> {
  const out: ExportedCatalogue[] = [];
  for (const { group, docs } of catalogueGroups(documents)) {
    const analyses = new Map<string, Analysis | undefined>();
    const texts = new Map<string, string | undefined>();
    for (const d of Object.values(docs)) {
      analyses.set(d.id, await analysisOf(deps, d));
      if (d.bytes <= MAX_EXPORT_CATALOGUE_TEXT_BYTES) texts.set(d.id, await deps.texts.get(d.sha256));
    }
    out.push(exportCatalogue(group, docs, { analysisOf: (d) => analyses.get(d.id), textOf: (d) => texts.get(d.id), escape: inertCell }));
  }
  return out;
}

/**
 * `GET /api/rooms/:id/export.md` and `…/export.json`: the room as a report (documents; each
 * annotation with its quoted lines, kind, size and traffic, thread and status; the notes; each
 * capture with its provenance and cost figures; the mapping table of each capture or module group;
 * the gate of each capture group with a trace; the diff of each capture or module group's HLO
 * against the earlier group of the same program; the lower() vs compile() card and operator
 * catalogue of each group holding a program layer), for any role. The browser's Export button
 * downloads it. Whatever members wrote, and whatever dumps and runners hold, comes out as inert
 * text in both forms (no markup, no links).
 */
export function exportRoutes(deps: AppDeps): Hono {
  const { store, rooms, directory } = deps;
  const app = new Hono();

  const build = async (c: Context): Promise<RoomExport> => {
    const roomId = c.req.param('id') ?? '';
    await authorize(c, deps, roomId, ROLES);
    const { doc } = await rooms.load(roomId);
    const title = roomTitle(doc, (directory ? await directory.get(roomId) : store.rooms.get(roomId))?.title ?? roomId);
    const documents = await deps.content.documents.list(roomId);
    const annotations = readAnnotations(doc);
    // The texts the annotations quote, decompressed off the event loop before the export is built.
    const quoted = new Set(annotations.map((a) => a.docId));
    const texts = new Map(await Promise.all(documents.filter((d) => quoted.has(d.id)).map(async (d) => [d.id, await deps.texts.get(d.sha256)] as const)));
    const gates = await gatesOf(deps, roomId, documents);
    const mappings = await mappingsOf(deps, documents);
    const captures = readCaptures(doc);
    const diffs = await diffsOf(deps, documents, captures);
    const catalogues = await cataloguesOf(deps, documents);
    // The dumps that spill annotations mark: each spill's readers, and the figures one marked from a selection lacks.
    const spillDocs = new Set(annotations.filter((a) => a.kind === 'spill' && !a.trace).map((a) => a.docId));
    const spillAnalyses = new Map<string, Analysis>();
    for (const d of documents.filter((x) => spillDocs.has(x.id))) {
      const a = await analysisOf(deps, d);
      if (a) spillAnalyses.set(d.id, a);
    }
    return buildExport({
      roomId, title, documents, annotations, textOf: (docId) => texts.get(docId), now: Date.now(), ...(gates.length > 0 ? { gates } : {}),
      notes: doc.getText(RoomKey.notes).toString(), captures, analysisOf: (docId) => spillAnalyses.get(docId), mappings, diffs, catalogues,
    });
  };

  app.get('/:id/export.md', async (c) => {
    const e = await build(c);
    c.header('Content-Disposition', `attachment; filename="${fileName(e.room.title)}.md"`);
    c.header('Cache-Control', 'no-store');
    return c.body(exportToMarkdown(e), 200, { 'Content-Type': 'text/markdown; charset=utf-8' });
  });

  app.get('/:id/export.json', async (c) => {
    const e = await build(c);
    c.header('Content-Disposition', `attachment; filename="${fileName(e.room.title)}.json"`);
    c.header('Cache-Control', 'no-store');
    return c.body(exportToJson(e), 200, { 'Content-Type': 'application/json; charset=utf-8' });
  });

  return app;
}
