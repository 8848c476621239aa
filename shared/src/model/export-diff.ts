import { diffModules, diffToMarkdown, type ModuleDiff } from '../ir/diff/index';
import type { OpTime } from '../ir/gate';
import { DocumentKind, type DocumentMeta } from './document';
import type { CaptureEntry } from './jobs';
import { isPassDump, layerGroups, type LayerGroup } from './layer-groups';

/**
 * Which HLO documents the room compares: each capture or module group's HLO (optimized preferred)
 * against the same layer of the nearest earlier group of the same program, that is a capture of
 * the same entry function, or a module group of the same module name. The diff view offers the
 * last such pair first; the export diffs every one of them.
 */
export interface VersionPair {
  /** The earlier group's document (the base, A). */
  readonly a: DocumentMeta;
  readonly b: DocumentMeta;
  /** The groups as the document list names them: `capture #1`, `module 0042 jit_train_step`. */
  readonly labelA: string;
  readonly labelB: string;
}

/** Largest text the export diffs, per side: a diff holds the server's thread for about 0.1 s per MB of the two. */
export const MAX_EXPORT_DIFF_BYTES = 4 * 1024 * 1024;

/** The kinds a diff reads: HLO before and after optimization. */
export const DIFF_KINDS: ReadonlySet<string> = new Set([DocumentKind.hlo, DocumentKind.hloOpt]);

/** A group's HLO document of `kind` (pass dumps aside; the last listed), if it has one. */
function hloOf(g: LayerGroup, kind: string): DocumentMeta | undefined {
  return g.docs.filter((d) => d.kind === kind && !isPassDump(d)).at(-1);
}

/** What makes two groups versions of one program: `entry:<function>` for a capture, `module:<name>` for a module group; null when unknown. */
function programOf(g: LayerGroup, entries: ReadonlyMap<string, string>): string | null {
  const d = g.docs[0];
  if (g.kind === 'capture' && d?.captureId !== undefined) {
    const entry = entries.get(d.captureId);
    return entry === undefined ? null : `entry:${entry}`;
  }
  return g.kind === 'module' && d?.module ? `module:${d.module.name}` : null;
}

/** Every version pair of a document list, in list order of the later group (see `VersionPair`). */
export function versionPairs(documents: readonly DocumentMeta[], captures: readonly CaptureEntry[]): VersionPair[] {
  const entries = new Map(captures.map((c) => [c.id, c.entry]));
  const groups = layerGroups(documents).filter((g) => g.kind !== 'single');
  const out: VersionPair[] = [];
  groups.forEach((g, i) => {
    const program = programOf(g, entries);
    if (program === null) return;
    for (const kind of [DocumentKind.hloOpt, DocumentKind.hlo]) {
      const b = hloOf(g, kind);
      if (!b) continue;
      const earlier = groups.slice(0, i).reverse().find((p) => programOf(p, entries) === program && hloOf(p, kind));
      const a = earlier ? hloOf(earlier, kind) : undefined;
      if (earlier && a) out.push({ a, b, labelA: earlier.label, labelB: g.label });
      return;
    }
  });
  return out;
}

/** One diff in the export: the two documents, and the diff (JSON and Markdown), or why it was not made. */
export interface ExportedDiff {
  readonly a: { readonly id: string; readonly title: string; readonly group: string };
  readonly b: { readonly id: string; readonly title: string; readonly group: string };
  readonly diff?: ModuleDiff;
  /** `diffToMarkdown` of `diff`, dump text escaped as inert text by `escape`. */
  readonly markdown?: string;
  /** Why there is no diff: a text over `MAX_EXPORT_DIFF_BYTES`, or one the store could not give. */
  readonly skipped?: string;
}

/** What `exportDiff` reads: each document's text, its trace's op rows when it has one, and how dump text is escaped for Markdown. */
export interface ExportDiffSources {
  readonly textOf: (d: DocumentMeta) => string | undefined;
  readonly opTimesOf?: (d: DocumentMeta) => readonly OpTime[] | undefined;
  readonly escape: (s: string) => string;
}

/** The diff of one version pair for the export; texts over `MAX_EXPORT_DIFF_BYTES` are not read, and the entry says so. */
export function exportDiff(p: VersionPair, src: ExportDiffSources, maxBytes = MAX_EXPORT_DIFF_BYTES): ExportedDiff {
  const a = { id: p.a.id, title: p.a.title, group: p.labelA };
  const b = { id: p.b.id, title: p.b.title, group: p.labelB };
  const big = [p.a, p.b].find((d) => d.bytes > maxBytes);
  if (big) return { a, b, skipped: `${big.title} is ${big.bytes.toLocaleString('en-US')} B, over the ${maxBytes.toLocaleString('en-US')} B the export diffs; run \`seam diff\` on the two files` };
  const ta = src.textOf(p.a);
  const tb = src.textOf(p.b);
  if (ta === undefined || tb === undefined) return { a, b, skipped: `the text of ${(ta === undefined ? p.a : p.b).title} is not stored` };
  const oa = src.opTimesOf?.(p.a);
  const ob = src.opTimesOf?.(p.b);
  const diff = diffModules(ta, tb, { kindA: p.a.kind, kindB: p.b.kind, ...(oa && ob ? { opTimes: { a: oa, b: ob } } : {}) });
  const markdown = diffToMarkdown(diff, { a: `${p.labelA}: ${p.a.title}`, b: `${p.labelB}: ${p.b.title}` }, undefined, src.escape);
  return { a, b, diff, markdown };
}
