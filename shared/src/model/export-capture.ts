import { captureFigures, type CaptureFigures } from './capture-facts';
import type { DocumentMeta } from './document';
import type { ArgSpec, CaptureEntry, CaptureError, CaptureProvenance, JobStatus } from './jobs';
import { layerGroups } from './layer-groups';

/** One capture of the room in the export: what ran, where and with what, what the cost model said, and what it gave. */
export interface ExportedCapture {
  readonly captureId: string;
  /** `capture #2`, as the document list numbers capture groups; `capture <id>` for one that left no documents. */
  readonly label: string;
  readonly entry: string;
  readonly args: readonly ArgSpec[];
  readonly status: JobStatus;
  readonly requestedBy: string;
  readonly createdAt: number;
  readonly provenance?: CaptureProvenance;
  readonly figures: CaptureFigures;
  /** Titles of the group's documents, in list order. */
  readonly documents: readonly string[];
  readonly error?: CaptureError;
}

/**
 * The room's captures for the export, in the order the document list shows their groups, then
 * those that left no documents (failed, cancelled, still queued) oldest first.
 */
export function exportCaptures(documents: readonly DocumentMeta[], captures: readonly CaptureEntry[]): ExportedCapture[] {
  const groups = new Map(layerGroups(documents).filter((g) => g.kind === 'capture').map((g, i) => [g.key, { order: i, label: g.label, docs: g.docs }]));
  const placed = captures.map((c) => ({ c, g: groups.get(`capture:${c.id}`) }));
  placed.sort((a, b) => (a.g?.order ?? groups.size) - (b.g?.order ?? groups.size) || a.c.createdAt - b.c.createdAt);
  return placed.map(({ c, g }): ExportedCapture => ({
    captureId: c.id, label: g?.label ?? `capture ${c.id}`, entry: c.entry, args: c.args, status: c.status, requestedBy: c.requestedBy,
    createdAt: c.createdAt, ...(c.provenance ? { provenance: c.provenance } : {}), figures: captureFigures(c.analyses),
    documents: (g?.docs ?? []).map((d) => d.title), ...(c.error ? { error: c.error } : {}),
  }));
}
