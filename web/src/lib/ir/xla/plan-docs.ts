import type { DocumentMeta } from '@seam/shared/model';
import type { OutlineEntry } from '@seam/shared/ir';

/** Whether `name` (a jit module's, `jit_mlp`) stands as a whole word in `title` (`module_0000.jit_mlp.cpu_after_optimizations-buffer-assignment.txt`). */
export function namesModule(title: string, name: string): boolean {
  if (name === '') return false;
  const at = title.indexOf(name);
  if (at < 0) return false;
  const before = title.charAt(at - 1);
  const after = title.charAt(at + name.length);
  return !/\w/.test(before) && !/\w/.test(after);
}

/** `HloModule jit_mlp` as the outline holds it: the name of the first module entry. */
export function moduleNameOf(outline: readonly OutlineEntry[]): string | null {
  return outline.find((e) => e.kind === 'module')?.name ?? null;
}

/**
 * A file of XLA's buffer assignment that the room stores as plain text: newer XLA writes the used
 * values and the live ranges (with the peak live set) beside `*-buffer-assignment.txt`.
 */
export function isPlanText(d: DocumentMeta): boolean {
  return d.kind === 'text' && d.module !== undefined && /-(?:live-range|buffer-assignment-values)\.txt$/.test(d.module.path);
}

/**
 * The buffer-assignment documents that describe optimized HLO `hlo` (whose `HloModule` is
 * `moduleName`): those of its module group when it has one, else the newest whose module (or
 * title) names that module. XLA may split one assignment over several files (allocations, values, live
 * ranges); all of them are returned, to be merged (in a group, also those stored as text: `isPlanText`).
 */
export function assignmentDocsFor(docs: readonly DocumentMeta[], hlo: DocumentMeta, moduleName: string | null): DocumentMeta[] {
  const assignments = docs.filter((d) => d.kind === 'buffer-assignment');
  const group = hlo.module?.groupId;
  if (group !== undefined) {
    const own = docs.filter((d) => d.module?.groupId === group && (d.kind === 'buffer-assignment' || isPlanText(d)));
    if (own.length > 0) return own;
  }
  if (moduleName === null) return [];
  // Outside a group, one assignment: the newest that names the module (an older one may be of another compile).
  const named = assignments.filter((d) => (d.module ? d.module.name === moduleName : namesModule(d.title, moduleName)));
  const newest = named.reduce<DocumentMeta | undefined>((a, d) => (a === undefined || d.createdAt > a.createdAt ? d : a), undefined);
  return newest ? [newest] : [];
}

/** The optimized HLO documents a buffer assignment may describe: its module group's, else every one in the room, newest first. */
export function hloCandidatesFor(docs: readonly DocumentMeta[], assignment: DocumentMeta): DocumentMeta[] {
  const opt = docs.filter((d) => d.kind === 'hlo-opt' && d.module?.pass === undefined);
  const group = assignment.module?.groupId;
  const own = group === undefined ? [] : opt.filter((d) => d.module?.groupId === group);
  return own.length > 0 ? own : [...opt].sort((a, b) => b.createdAt - a.createdAt);
}

/** The per-pass dumps of `d`'s module group, in pass order; empty when it has none. */
export function passDocsOf(docs: readonly DocumentMeta[], d: DocumentMeta | undefined): DocumentMeta[] {
  const group = d?.module?.groupId;
  if (group === undefined) return [];
  return docs
    .filter((x) => x.module?.groupId === group && x.module.pass !== undefined)
    .sort((a, b) => (a.module?.pass?.index ?? 0) - (b.module?.pass?.index ?? 0));
}

/** A pass dump's label: `after dot-library-rewriter (dot-library-passes)`. */
export function passLabel(d: DocumentMeta): string {
  const p = d.module?.pass;
  if (!p) return d.title;
  return `${p.when} ${p.name}${p.pipeline ? ` (${p.pipeline})` : ''}`;
}

/** The memory-usage report XLA wrote beside optimized HLO `hlo`: its module group's; none outside a group. */
export function memoryReportDocOf(docs: readonly DocumentMeta[], hlo: DocumentMeta): DocumentMeta | undefined {
  const group = hlo.module?.groupId;
  return group === undefined ? undefined : docs.find((d) => d.kind === 'memory-report' && d.module?.groupId === group);
}
